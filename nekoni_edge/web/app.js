// The page: pair, connect (and reconnect), chat with streaming and cancel, documents.
import { Identity, NekoniClient, storage } from "./nekoni.js";

const $ = (id) => document.getElementById(id);
const RECONNECT_MAX_MS = 10000;

let client;
let sessionId;
let streaming = null; // {bubble, done}
let reconnectDelay = 1000;
let reconnectTimer = null;

function setStatus(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function addMessage(role, text, state = "done") {
  const item = document.createElement("li");
  item.className = `msg ${role}`;
  item.dataset.state = state;
  item.textContent = text;
  $("messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

async function showHistory() {
  const reply = await client.request(
    { type: "sync", sessionId, afterTimestamp: 0, all: true }, "sync_response",
  );
  $("messages").replaceChildren();
  // The log also keeps the agent's tool results; the chat shows what was said.
  for (const m of reply.messages) {
    if (m.role === "user" || m.role === "assistant") addMessage(m.role, m.content);
  }
}

async function refreshDocs() {
  const { documents } = await client.listDocuments();
  const items = documents.map((doc) => {
    const item = document.createElement("li");
    item.dataset.docId = doc.doc_id;
    const name = document.createElement("span");
    name.className = "doc-name";
    name.textContent = `${doc.source} (${doc.chunks} chunks)`;
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "delete";
    remove.textContent = "Delete";
    remove.onclick = async () => {
      remove.disabled = true;
      try {
        await client.deleteDocument(doc.doc_id);
        await refreshDocs();
      } catch (error) {  // e.g. a device paired moments ago may not delete yet
        $("upload-status").textContent = `${doc.source}: ${error.message}`;
        remove.disabled = false;
      }
    };
    item.append(name, remove);
    return item;
  });
  $("docs").replaceChildren(...items);
}

async function connect() {
  clearTimeout(reconnectTimer);
  setStatus("connecting", "Connecting to the box…");
  try {
    await client.connect();
  } catch (error) {
    if (error.code === "KEY_CHANGED" || error.code === "NOT_APPROVED") {
      setStatus("disconnected", error.message);
      if (error.code === "NOT_APPROVED") showPairing();
      return;
    }
    scheduleReconnect(error.message);
    return;
  }
  reconnectDelay = 1000;
  $("box-name").textContent = client.info.agentName;
  setStatus("ready", `Connected to ${client.info.agentName} (${client.info.model || "no model"})`);
  $("pair-panel").hidden = true;
  $("chat-panel").hidden = false;
  await showHistory();
  await refreshDocs();
}

function scheduleReconnect(why) {
  setStatus("disconnected", `Not connected (${why}); retrying in ${reconnectDelay / 1000} s…`);
  reconnectTimer = setTimeout(connect, reconnectDelay);
  reconnectDelay = Math.min(RECONNECT_MAX_MS, reconnectDelay * 2);
}

function showPairing() {
  $("chat-panel").hidden = true;
  $("pair-panel").hidden = false;
}

async function pair() {
  $("pair-button").disabled = true;
  try {
    await client.pair($("device-name").value.trim());
    $("pair-hint").textContent = "Paired.";
    await connect();
  } catch (error) {
    $("pair-hint").textContent = error.message;
  } finally {
    $("pair-button").disabled = false;
  }
}

async function send(event) {
  event.preventDefault();
  const content = $("prompt").value.trim();
  if (!content || streaming) return;
  $("prompt").value = "";
  addMessage("user", content);
  const bubble = addMessage("assistant", "", "streaming");
  streaming = { bubble };
  $("send").disabled = true;
  $("cancel").disabled = false;
  try {
    const end = await client.ask(content, sessionId, (piece) => {
      bubble.textContent += piece;
    });
    bubble.dataset.state = end.cancelled ? "cancelled" : "done";
  } catch (error) {
    bubble.dataset.state = "error";
    bubble.textContent += (bubble.textContent ? "\n" : "") + `⚠ ${error.message}`;
  } finally {
    streaming = null;
    $("send").disabled = false;
    $("cancel").disabled = true;
  }
}

async function upload() {
  const file = $("file").files[0];
  if (!file) return;
  const progress = $("upload-progress");
  progress.hidden = false;
  progress.value = 0;
  $("upload-status").textContent = `Sending ${file.name}…`;
  try {
    const reply = await client.upload(file.name, await file.arrayBuffer(),
      (fraction, phase, etaS) => {
        progress.value = fraction;
        const left = etaS == null ? "" : etaS < 60 ? ` about ${Math.max(1, etaS)} s left`
          : ` about ${Math.round(etaS / 60)} min left`;
        $("upload-status").textContent =
          `${phase === "indexing" ? "Indexing" : "Sending"} ${file.name}…${left}`;
      });
    $("upload-status").textContent = `${reply.filename}: ${reply.chunks} chunks stored`;
    await refreshDocs();
  } catch (error) {
    $("upload-status").textContent = `${file.name}: ${error.message}`;
  } finally {
    $("file").value = "";
  }
}

async function main() {
  const identity = await Identity.load();
  client = new NekoniClient(identity);
  window.nekoni = client; // for the console (and the browser tests)
  sessionId = (await storage.get("sessionId")) || `web-${identity.pubKey.slice(0, 8)}`;
  await storage.put("sessionId", sessionId);
  client.addEventListener("pairing", (event) => {
    if (event.detail.status === "pending_approval") {
      $("pair-hint").textContent = "Press the button on your box.";
    }
  });
  client.addEventListener("state", (event) => {
    const { state, detail } = event.detail;
    if (state === "disconnected" && $("status").dataset.state === "ready") {
      if (streaming) streaming.bubble.dataset.state = "error";
      scheduleReconnect(detail || "connection lost");
    }
  });
  // Drawn by the box when asked: the codes name the address this page reached it at.
  $("apps-panel").ontoggle = () => {
    if (!$("apps-panel").open) return;
    for (const app of ["mobile", "web"]) $(`qr-${app}`).src = `/api/pair/qr?app=${app}`;
  };
  // Every paired device hears of a new one: a stranger who won the race to the button
  // is noticed at once.
  client.addEventListener("message", (event) => {
    if (event.detail.type !== "device_added") return;
    $("notice").textContent = event.detail.message;  // the box's words
    $("notice").hidden = false;
  });
  $("pair-button").onclick = pair;
  $("chat-form").onsubmit = send;
  $("cancel").onclick = () => client.cancel(sessionId);
  $("file").onchange = upload;
  $("prompt").onkeydown = (event) => {
    if (event.key === "Enter" && !event.shiftKey) send(event);
  };
  if (await storage.get("agentPubKey")) {
    await connect();
  } else {
    await client.fetchInfo();
    $("box-name").textContent = client.info.agentName;
    setStatus("unpaired", "Not paired");
    showPairing();
  }
}

main().catch((error) => setStatus("disconnected", error.message));
