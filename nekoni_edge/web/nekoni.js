// nekoni's wire protocol for a browser: keys, signatures, pairing, signaling, handshake, chat.
// Plain ES module, no dependencies: WebCrypto Ed25519 and IndexedDB do the work.

const UPLOAD_SEGMENT_BYTES = (15 * 1024 * 3) / 4; // base64 of this is 15 KB, as PROTOCOL.md caps
const CONNECT_TIMEOUT_MS = 30000;
const ED25519 = { name: "Ed25519" };

export class NekoniError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

// --- encodings -------------------------------------------------------------------------------

function b64Encode(bytes) {
  let text = "";
  for (const b of new Uint8Array(bytes)) text += String.fromCharCode(b);
  return btoa(text);
}

export function b64urlEncode(bytes) {
  return b64Encode(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function b64urlDecode(text) {
  if (typeof text !== "string" || !/^[A-Za-z0-9_-]*$/.test(text)) {
    throw new NekoniError("INVALID_MESSAGE", "not base64url");
  }
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
}

function pyString(text) {
  // Python's json.dumps with ensure_ascii=True: escape per UTF-16 unit, as Python does.
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const ch = text[i];
    if (ch === '"') out += '\\"';
    else if (ch === "\\") out += "\\\\";
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\b") out += "\\b";
    else if (ch === "\f") out += "\\f";
    else if (c < 0x20 || c > 0x7e) out += "\\u" + c.toString(16).padStart(4, "0");
    else out += ch;
  }
  return out + '"';
}

// canonical(p) = json.dumps(p, separators=(",", ":"), sort_keys=True): the form a signer uses.
export function canonical(value) {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    // Integers print alike in Python and JS; nothing the client signs has floats.
    if (!Number.isFinite(value)) throw new NekoniError("INVALID_MESSAGE", "not a JSON number");
    return String(value);
  }
  if (typeof value === "string") return pyString(value);
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
  return "{" + keys.map((k) => pyString(k) + ":" + canonical(value[k])).join(",") + "}";
}

function withoutSig(message) {
  const copy = { ...message };
  delete copy.sig;
  return copy;
}

// --- keys --------------------------------------------------------------------------------------

function openDb() {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open("nekoni-edge", 1);
    request.onupgradeneeded = () => request.result.createObjectStore("kv");
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function kv(mode, action) {
  const db = await openDb();
  try {
    return await new Promise((resolve, reject) => {
      const tx = db.transaction("kv", mode);
      const request = action(tx.objectStore("kv"));
      tx.oncomplete = () => resolve(request.result);
      tx.onerror = () => reject(tx.error);
    });
  } finally {
    db.close();
  }
}

export const storage = {
  get: (key) => kv("readonly", (store) => store.get(key)),
  put: (key, value) => kv("readwrite", (store) => store.put(value, key)),
  delete: (key) => kv("readwrite", (store) => store.delete(key)),
};

export class Identity {
  constructor(keyPair, pubKey) {
    this.keyPair = keyPair;
    this.pubKey = pubKey;
  }

  // The phone's key: made once, kept in IndexedDB; the private half is not extractable.
  static async load() {
    let keyPair = await storage.get("identity");
    if (!keyPair) {
      keyPair = await crypto.subtle.generateKey(ED25519, false, ["sign", "verify"]);
      await storage.put("identity", keyPair);
    }
    const raw = await crypto.subtle.exportKey("raw", keyPair.publicKey);
    return new Identity(keyPair, b64urlEncode(raw));
  }

  async signPayload(payload) {
    const data = new TextEncoder().encode(canonical(payload));
    return b64urlEncode(await crypto.subtle.sign(ED25519, this.keyPair.privateKey, data));
  }

  // A client message carries its own pubKey and is signed over everything but sig.
  async signed(message) {
    const body = { ...withoutSig(message), pubKey: this.pubKey };
    return { ...body, sig: await this.signPayload(body) };
  }
}

export async function verifyPayload(pubKey, payload, sig) {
  if (typeof sig !== "string") return false;
  let key, signature;
  try {
    key = await crypto.subtle.importKey("raw", b64urlDecode(pubKey), ED25519, false, ["verify"]);
    signature = b64urlDecode(sig);
  } catch {
    return false;
  }
  const data = new TextEncoder().encode(canonical(payload));
  return crypto.subtle.verify(ED25519, key, signature, data);
}

// The agent signs answers over the message plus its own pubKey, which it does not send.
async function verifyFromAgent(message, agentPubKey) {
  return verifyPayload(agentPubKey, { ...withoutSig(message), pubKey: agentPubKey }, message.sig);
}

function randomNonce() {
  return b64urlEncode(crypto.getRandomValues(new Uint8Array(32)));
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new NekoniError("TIMEOUT", `${what} timed out`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// --- the client ----------------------------------------------------------------------------------

export class NekoniClient extends EventTarget {
  constructor(identity, baseUrl = "") {
    super();
    this.identity = identity;
    this.baseUrl = baseUrl;
    this.info = null;
    this.agentPubKey = null;
    this.clientId = "mobile-" + b64urlEncode(crypto.getRandomValues(new Uint8Array(4)));
    this.pc = null;
    this.channel = null;
    this.ws = null;
    this.waiters = [];
    this.state = "disconnected";
  }

  setState(state, detail = "") {
    this.state = state;
    this.dispatchEvent(new CustomEvent("state", { detail: { state, detail } }));
  }

  async fetchInfo() {
    const response = await fetch(this.baseUrl + "/api/info", { cache: "no-store" });
    if (!response.ok) throw new NekoniError("HTTP", `/api/info answered ${response.status}`);
    const info = await response.json();
    const pinned = await storage.get("agentPubKey");
    if (pinned && pinned !== info.agentPubKey) {
      throw new NekoniError(
        "KEY_CHANGED",
        "the box's key changed since pairing; if it was reset on purpose, forget it and pair again",
      );
    }
    this.info = info;
    this.agentPubKey = info.agentPubKey;
    return info;
  }

  // POST /api/pair, then poll until the owner presses the button (or the window closes).
  async pair(deviceName, { waitMs = 130000, pollMs = 1000 } = {}) {
    await this.fetchInfo();
    // The pair request names its key as mobilePubKey and is signed over the rest of itself.
    const body = { mobilePubKey: this.identity.pubKey, ts: Date.now(), deviceName };
    body.sig = await this.identity.signPayload(body);
    const response = await fetch(this.baseUrl + "/api/pair", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    let answer = await response.json();
    if (!response.ok) {  // an error, or a refusal (409): detail says why in words
      throw new NekoniError(answer.error || answer.status || "HTTP",
                            answer.detail || answer.message || "refused");
    }
    let status = answer.status;
    this.dispatchEvent(new CustomEvent("pairing", { detail: { status } }));
    const deadline = Date.now() + waitMs;
    while (status === "pending_approval" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, pollMs));
      // The box answers only its own key, asking freshly: the query is signed like the request.
      const query = { mobilePubKey: this.identity.pubKey, ts: Date.now() };
      query.sig = await this.identity.signPayload(query);
      const url = `${this.baseUrl}/api/pair/status?${new URLSearchParams(query)}`;
      answer = await (await fetch(url, { cache: "no-store" })).json();
      status = answer.status;
    }
    this.dispatchEvent(new CustomEvent("pairing", { detail: { status } }));
    if (status !== "approved" && status !== "already_approved") {
      // The box's words say what to do (a refusal names the label's code); ours where none.
      const why = {
        pending_approval: "nobody pressed the box's button in time",
        not_paired: "the box's pairing window closed before the button was pressed",
      };
      throw new NekoniError("PAIRING_" + String(status).toUpperCase(),
                            answer.detail || why[status] || status);
    }
    await storage.put("agentPubKey", this.agentPubKey);
    return status;
  }

  async connect() {
    this.setState("connecting");
    try {
      await withTimeout(this._connect(), CONNECT_TIMEOUT_MS, "connecting to the box");
    } catch (error) {
      this.close();
      this.setState("disconnected", error.message);
      throw error;
    }
    this.setState("ready");
  }

  async _connect() {
    const info = await this.fetchInfo();
    const ws = new WebSocket((this.baseUrl || location.origin).replace(/^http/, "ws") + "/signal");
    this.ws = ws;
    const signals = [];
    let signalWaiter = null;
    ws.onmessage = (event) => {
      signals.push(event.data);
      if (signalWaiter) signalWaiter();
    };
    const nextSignal = async () => {
      while (!signals.length) {
        if (ws.readyState > WebSocket.OPEN) throw new NekoniError("SIGNAL", "signaling closed");
        await new Promise((resolve) => {
          signalWaiter = resolve;
          ws.onclose = resolve;
        });
      }
      const message = JSON.parse(signals.shift());
      if (message.type === "error") throw new NekoniError(message.code, message.message);
      return message;
    };
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = () => reject(new NekoniError("SIGNAL", "cannot open the box's /signal"));
    });
    const join = { type: "join", roomId: info.roomId, clientId: this.clientId, ts: Date.now() };
    ws.send(JSON.stringify(await this.identity.signed(join)));
    const joined = await nextSignal();
    if (joined.type !== "peer_joined" || joined.pubKey !== this.agentPubKey) {
      throw new NekoniError("KEY_CHANGED", "the box in the room is not the paired box");
    }

    const pc = new RTCPeerConnection({ iceServers: [] }); // LAN only: no STUN, no TURN
    this.pc = pc;
    const channel = pc.createDataChannel("nekoni", { ordered: true });
    this.channel = channel;
    channel.onmessage = (event) => this._onMessage(event.data);
    channel.onclose = () => this._onClose();
    pc.onconnectionstatechange = () => {
      if (["failed", "closed"].includes(pc.connectionState)) this._onClose();
    };
    const opened = new Promise((resolve) => { channel.onopen = resolve; });
    await pc.setLocalDescription(await pc.createOffer());
    // aiortc takes candidates in the SDP: wait for gathering to finish (bounded) instead of
    // trickling them one by one.
    await withTimeout(new Promise((resolve) => {
      if (pc.iceGatheringState === "complete") resolve();
      pc.onicegatheringstatechange = () => pc.iceGatheringState === "complete" && resolve();
    }), 5000, "gathering ICE candidates").catch(() => {});
    const offer = {
      type: "offer", sdp: pc.localDescription.sdp, from: this.clientId, to: joined.clientId,
      ts: Date.now(),
    };
    ws.send(JSON.stringify(await this.identity.signed(offer)));
    const answer = await nextSignal();
    // The DTLS fingerprint is in this SDP: checking its signature binds the channel to the box.
    if (answer.type !== "answer" || typeof answer.sdp !== "string" ||
        !(await verifyFromAgent(answer, this.agentPubKey))) {
      throw new NekoniError("INVALID_SIGNATURE", "the answer is not signed by the paired box");
    }
    if (Math.abs(Date.now() - answer.ts) > 5 * 60 * 1000) {
      throw new NekoniError("STALE_TIMESTAMP", "the box's answer is stale; check the clocks");
    }
    await pc.setRemoteDescription({ type: "answer", sdp: answer.sdp });
    await opened;
    ws.close(); // signaling is done once the channel is open
    this.ws = null;

    const nonce = randomNonce();
    this.send({ type: "hello", pubKey: this.identity.pubKey, nonce });
    const challenge = await this.next();
    if (challenge.type !== "challenge" ||
        !(await verifyPayload(this.agentPubKey, { nonce }, challenge.sig))) {
      throw new NekoniError("AUTH_FAILED", "the box's challenge is not signed by the paired box");
    }
    this.send({ type: "response", sig: await this.identity.signPayload({ nonce: challenge.nonce }) });
    const ready = await this.next();
    if (ready.type !== "ready") throw new NekoniError("AUTH_FAILED", "the box did not say ready");
  }

  _onMessage(data) {
    let message;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    if (message && message.type === "auth_failed") {
      this.setState("disconnected", "refused: " + message.reason);
    }
    const waiter = this.waiters.find((w) => w.accept(message));
    if (waiter) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve(message);
    }
    this.dispatchEvent(new CustomEvent("message", { detail: message }));
  }

  _onClose() {
    for (const waiter of this.waiters.splice(0)) {
      waiter.reject(new NekoniError("CLOSED", "the box closed the channel"));
    }
    if (this.state !== "disconnected") this.setState("disconnected", "the box closed the channel");
  }

  // The next message that ``accept`` takes (any, by default).
  next(accept = () => true) {
    return new Promise((resolve, reject) => {
      if (!this.channel || this.channel.readyState === "closed") {
        reject(new NekoniError("CLOSED", "not connected"));
        return;
      }
      this.waiters.push({ accept, resolve, reject });
    });
  }

  send(message) {
    if (!this.channel || this.channel.readyState !== "open") {
      throw new NekoniError("CLOSED", "not connected to the box");
    }
    this.channel.send(JSON.stringify(message));
  }

  // Send a chat message; onChunk gets each streamed piece; resolves with the end message.
  async ask(content, sessionId, onChunk) {
    let failed = null;
    const done = new Promise((resolve, reject) => {
      const listener = (event) => {
        const message = event.detail;
        if (message.type === "chunk" && !message.sessionId?.startsWith?.("skill:")) {
          onChunk(message.content || "");
          return;
        }
        // A turn's failure comes twice: the error, then the same in plain words for nekoni's
        // apps (a message with its code), which ends the turn here.
        if (message.type === "error" && message.sessionId === sessionId) {
          failed = new NekoniError(message.code, message.message);
          return;
        }
        if (message.type === "message" && message.content && !failed) onChunk(message.content);
        if (["message_end", "message", "error"].includes(message.type)) {
          this.removeEventListener("message", listener);
          this.removeEventListener("state", closed);
          if (failed) reject(failed);
          else if (message.type === "error") reject(new NekoniError(message.code, message.message));
          else resolve(message);
        }
      };
      const closed = (event) => {
        if (event.detail.state === "disconnected") {
          this.removeEventListener("message", listener);
          this.removeEventListener("state", closed);
          reject(new NekoniError("CLOSED", "the box went away mid-answer"));
        }
      };
      this.addEventListener("message", listener);
      this.addEventListener("state", closed);
    });
    this.send({ type: "message", content, sessionId });
    return done;
  }

  cancel(sessionId) {
    this.send({ type: "cancel", sessionId });
  }

  async request(message, expect, errors = ["error"]) {
    const reply = this.next((m) => m.type === expect || errors.includes(m.type));
    this.send(message);
    const answer = await reply;
    if (answer.type !== expect) {
      throw new NekoniError(answer.code || answer.type, answer.message || "refused");
    }
    return answer;
  }

  listDocuments() {
    return this.request({ type: "rag_list" }, "rag_list_response", ["rag_error", "error"]);
  }

  deleteDocument(docId) {
    return this.request({ type: "rag_delete", docId }, "rag_delete_response",
      ["rag_error", "error"]);
  }

  // Upload in base64 segments; onProgress(fraction, phase) from the box's own progress replies.
  async upload(filename, bytes, onProgress = () => {}) {
    const data = new Uint8Array(bytes);
    const parts = [];
    for (let i = 0; i < data.length; i += UPLOAD_SEGMENT_BYTES) {
      parts.push(data.subarray(i, i + UPLOAD_SEGMENT_BYTES));
    }
    if (!parts.length) parts.push(new Uint8Array());
    const uploadId = "up-" + b64urlEncode(crypto.getRandomValues(new Uint8Array(6)));
    const mine = (m) => m.uploadId === undefined || m.uploadId === uploadId;
    let failed = null;
    const done = new Promise((resolve, reject) => {
      const listener = (event) => {
        const m = event.detail;
        if (m.type === "rag_upload_progress" && mine(m)) {
          onProgress(0.5 * (m.received / m.total), "sending");
        } else if (m.type === "rag_ingest_progress" && mine(m)) {
          onProgress(0.5 + 0.5 * (m.chunksDone / Math.max(1, m.chunksTotal)), "indexing",
            m.etaS);
        } else if (m.type === "rag_upload_response") {
          this.removeEventListener("message", listener);
          onProgress(1, "done");
          resolve(m);
        } else if ((m.type === "rag_error" || m.type === "error") && mine(m)) {
          this.removeEventListener("message", listener);
          reject(new NekoniError(m.code || "RAG_ERROR", m.message));
        }
      };
      this.addEventListener("message", listener);
    });
    this.send({ type: "rag_upload_start", uploadId, filename, totalChunks: parts.length });
    for (const [index, part] of parts.entries()) {
      // Keep SCTP's send buffer short so progress means what it says.
      while (this.channel.bufferedAmount > 256 * 1024) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      this.send({ type: "rag_upload_chunk", uploadId, index, content: b64Encode(part) });
    }
    return done;
  }

  close() {
    if (this.channel) this.channel.onclose = null;
    this.pc?.close();
    this.ws?.close();
    this.pc = this.channel = this.ws = null;
  }
}
