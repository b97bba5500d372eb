"""Settings: defaults < TOML < NEKONI_* env; unknown keys and bad values named."""

from __future__ import annotations

from pathlib import Path

import pytest

from nekoni_edge.config import load_settings
from nekoni_edge.errors import ConfigError


def test_layers(tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text('port = 9000\nagent_name = "kitchen"\nice_addresses = ["10.0.0.2"]\n')
    s = load_settings(toml, env={"NEKONI_PORT": "9100"})
    assert s.port == 9100
    assert s.agent_name == "kitchen"
    assert s.ice_addresses == ("10.0.0.2",)
    assert load_settings(env={"NEKONI_ICE_ADDRESSES": "10.0.0.1, ::1"}).ice_addresses == (
        "10.0.0.1", "::1")
    assert load_settings(env={"NEKONI_MODEL_PATH": "/m.gguf"}).model_path == Path("/m.gguf")


def test_unknown_and_bad_values(tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text("colour = 'blue'\n")
    with pytest.raises(ConfigError, match="colour"):
        load_settings(toml, env={})
    with pytest.raises(ConfigError, match="NEKONI_PROT"):
        load_settings(env={"NEKONI_PROT": "1"})
    with pytest.raises(ConfigError, match="port"):
        load_settings(env={"NEKONI_PORT": "eighty"})
    with pytest.raises(ConfigError, match="port"):
        load_settings(env={"NEKONI_PORT": "70000"})
    with pytest.raises(ConfigError, match="temperature"):
        load_settings(env={"NEKONI_TEMPERATURE": "9"})
    toml.write_text("port = true\n")
    with pytest.raises(ConfigError, match="port"):
        load_settings(toml, env={})


def test_ice_addresses_must_be_addresses() -> None:
    assert load_settings(env={"NEKONI_ICE_ADDRESSES": "192.168.1.5,::1"}).ice_addresses == (
        "192.168.1.5", "::1")
    with pytest.raises(ConfigError, match="ice_addresses.*not-an-ip"):
        load_settings(env={"NEKONI_ICE_ADDRESSES": "not-an-ip"})


def test_where_the_data_dir_comes_from(tmp_path: Path) -> None:
    service = tmp_path / "var-lib-nekoni-edge"
    # a command typed on the box finds the installed service's data...
    assert load_settings(env={"XDG_DATA_HOME": "/xdg"}, service_dir=service).data_dir == \
        Path("/xdg/nekoni-edge")  # not yet installed: the user's own, not ./var
    service.mkdir()
    assert load_settings(env={}, service_dir=service).data_dir == service
    # ...unless systemd, the environment, the file or the command line says otherwise
    state = tmp_path / "state"
    assert load_settings(env={"STATE_DIRECTORY": str(state)}, service_dir=service).data_dir \
        == state
    assert load_settings(env={"NEKONI_DATA_DIR": "/d"}, service_dir=service).data_dir == \
        Path("/d")
    assert load_settings(env={}, service_dir=service, data_dir=Path("/x")).data_dir == Path("/x")


def test_the_engine_settings_are_checked_and_the_key_never_shown(tmp_path: Path) -> None:
    from nekoni_edge.config import describe

    settings = load_settings(env={"NEKONI_MODEL_URL": "http://192.168.1.20:8080",
                                  "NEKONI_MODEL_NAME": "qwen7b",
                                  "NEKONI_MODEL_API_KEY": "sk-secret-123"},
                             data_dir=tmp_path)
    shown = describe(settings)
    assert "sk-secret-123" not in shown
    assert "# model_api_key = (set, not shown)" in shown
    assert 'model_url = "http://192.168.1.20:8080"' in shown
    # no model_name: the engine's only model, found when the box starts
    assert load_settings(env={"NEKONI_MODEL_URL": "http://h:1"}, data_dir=tmp_path).model_name \
        == ""
    with pytest.raises(ConfigError, match="model_url"):
        load_settings(env={"NEKONI_MODEL_URL": "h:1", "NEKONI_MODEL_NAME": "m"},
                      data_dir=tmp_path)
    with pytest.raises(ConfigError, match="model_fallback"):
        load_settings(env={"NEKONI_MODEL_FALLBACK": "cloud"}, data_dir=tmp_path)
