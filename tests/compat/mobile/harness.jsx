// Runs nekoni's mobile app hooks (useIdentity, useWebRTC, useAgent, from the checkout the
// `mobile` alias names) in node, wired as the app's chat screen wires them (app/(tabs)/chat.tsx:
// connect on mount, handshake once connected, reset and reconnect 3 s after a disconnect or
// error, a "Connection error" toast per new error), and prints what the screen shows as JSON
// lines. Commands come as JSON lines on stdin. Written from their behaviour; none of their code.
import React, { useEffect, useRef, useCallback } from 'react'
import TestRenderer from 'react-test-renderer'
import readline from 'node:readline'
import WebSocket from 'ws'
import Toast from 'react-native-toast-message'
import { getOrCreateIdentity, signPayload } from 'mobile/hooks/useIdentity'
import { useWebRTC } from 'mobile/hooks/useWebRTC'
import { useAgent } from 'mobile/hooks/useAgent'

globalThis.WebSocket = WebSocket
const t0 = Date.now()
globalThis.__emit = (o) => process.stdout.write(JSON.stringify({ t: (Date.now() - t0) / 1000, ...o }) + '\n')
const agent = JSON.parse(process.env.AGENT)
const api = {}
let last = ''

function Chat({ identity }) {
  const dcRef = useRef(null)
  const { state: rtcState, error: rtcError, connect, disconnect, sendMessage: sendRaw } = useWebRTC({
    identity, onDataChannelMessage: (m) => dcRef.current?.(m) })
  const { authState, messages, pendingMessage, isThinking, handleDataChannelMessage, startHandshake,
    sendMessage, reset } = useAgent(identity, agent.agentPubKey, sendRaw, process.env.SESSION || null)
  const handleChannelMessage = useCallback((raw) => {
    try {
      const p = JSON.parse(raw)
      if (typeof p.type === 'string' && /^(rag_|skill_|cron_)/.test(p.type)) { __emit({ view: p }); return }
      if (p.type === 'error') __emit({ unshown: p })  // useAgent has no branch for it
    } catch {}
    handleDataChannelMessage(raw)
  }, [handleDataChannelMessage])
  useEffect(() => { dcRef.current = handleChannelMessage }, [handleChannelMessage])
  useEffect(() => { connect(agent) }, [])
  useEffect(() => {
    if (rtcError) Toast.show({ type: 'error', text1: 'Connection error', text2: rtcError })
  }, [rtcError])
  useEffect(() => {
    if (rtcState === 'disconnected' || rtcState === 'error') {
      reset()
      const t = setTimeout(() => connect(agent), 3000)
      return () => clearTimeout(t)
    }
  }, [rtcState])
  useEffect(() => { if (authState === 'failed') disconnect() }, [authState])
  useEffect(() => { if (rtcState === 'connected' && authState === 'pending') startHandshake() },
    [rtcState, authState])
  api.say = sendMessage
  api.raw = sendRaw
  api.disconnect = disconnect
  useEffect(() => {
    const shown = JSON.stringify({ rtcState, authState, thinking: isThinking, pending: pendingMessage,
      messages: messages.map((m) => ({ role: m.role, content: m.content })) })
    if (shown !== last) { last = shown; __emit({ shown: JSON.parse(shown) }) }
  })
  return null
}

async function pair(identity) {  // as app/pair.tsx does after a scan
  const payload = { mobilePubKey: identity.publicKeyB64, ts: Date.now(), deviceName: 'Mobile' }
  const sig = signPayload(payload, identity)
  try {
    const res = await fetch(`${agent.agentUrl.replace(/\/$/, '')}/api/pair`, { method: 'POST',
      headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...payload, sig }) })
    const text = await res.text()
    if (!res.ok) {
      let detail = text
      try { detail = JSON.parse(text).detail ?? text } catch {}
      throw new Error(`HTTP ${res.status}: ${detail}`)
    }
    __emit({ paired: JSON.parse(text) })
  } catch (e) {
    Toast.show({ type: 'error', text1: 'Pairing failed', text2: e.message })
  }
}

const identity = await getOrCreateIdentity()
__emit({ identity: identity.publicKeyB64 })
let renderer = null
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue
  const cmd = JSON.parse(line)
  if (cmd.pair) await pair(identity)
  if (cmd.open) renderer = TestRenderer.create(<Chat identity={identity} />)
  if (cmd.say !== undefined) api.say(cmd.say)
  if (cmd.raw) api.raw(JSON.stringify(cmd.raw))
  if (cmd.quit) break
}
renderer?.unmount()
process.exit(0)
