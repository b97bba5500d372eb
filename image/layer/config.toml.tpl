# /etc/nekoni-edge/config.toml — written at image build; see `nekoni-edge config show`.
port = ${NEKONI_PORT}
${NEKONI_MODEL_LINE}
