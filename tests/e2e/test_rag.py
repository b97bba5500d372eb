"""Documents over the DataChannel: upload in 15 KB chunks, then answers grounded on them."""

from __future__ import annotations

import base64
import dataclasses
from contextlib import aclosing
from typing import Any

import pytest

from benchmarks.rag_corpus import DOCUMENTS
from nekoni_edge.agent.answer import NOTES_HEADER
from nekoni_edge.client.phone import PhoneClient, ReplyError
from nekoni_edge.daemon import Daemon
from tests.e2e.helpers import approved
from tests.pdf import make_pdf

pytestmark = pytest.mark.slow

SECRET = ("The spare key to the shed is hidden inside the blue watering can behind the "
          "compost heap. The shed padlock combination is 4-7-1-9.")


class RecordingProvider:
    """The real llama.cpp provider, with every prompt it is given kept for inspection."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.prompts: list[Any] = []

    def stream_chat(self, messages: Any, *, max_tokens: int, usage: Any = None,
                    plain_text: bool = False, session: str | None = None) -> Any:
        self.prompts.append(list(messages))
        return self.inner.stream_chat(messages, max_tokens=max_tokens, usage=usage,
                                      plain_text=plain_text, session=session)

    async def complete_structured(self, messages: Any, schema: Any, *, max_tokens: int,
                                  usage: Any = None) -> str:
        return str(await self.inner.complete_structured(messages, schema,
                                                        max_tokens=max_tokens, usage=usage))

    async def count_tokens(self, text: str) -> int:
        return int(await self.inner.count_tokens(text))

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_upload_then_answer_uses_the_file(settings: Any, llama_provider: Any) -> None:


    recorder = RecordingProvider(llama_provider)
    daemon = Daemon(settings, provider=recorder)
    await daemon.start()
    try:
        key = await approved(daemon)
        async with PhoneClient(key, f"http://127.0.0.1:{daemon.port}") as phone:
            await upload_and_ask(phone, daemon, recorder)
    finally:
        await daemon.stop()


async def upload_and_ask(phone: PhoneClient, daemon: Daemon, recorder: RecordingProvider) -> None:
    filler = "\n\n".join(f"{name}: {text}" for name, text in DOCUMENTS.items()) * 16
    document = (filler + "\n\n" + SECRET).encode()
    assert len(document) > 3 * 11_520  # several 15 KB segments
    seen: list[dict[str, Any]] = []
    reply = await phone.upload("house-notes.txt", document, on_message=seen.append)
    assert reply["filename"] == "house-notes.txt"
    assert reply["chunks"] > 1
    assert len(reply["docId"]) == 16
    progress = [m for m in seen if m["type"] == "rag_upload_progress"]
    assert progress[-1]["received"] == progress[-1]["total"] >= 4
    ingest = [m for m in seen if m["type"] == "rag_ingest_progress"]
    assert ingest[-1]["chunksDone"] == ingest[-1]["chunksTotal"] == reply["chunks"]
    assert "etaS" in ingest[-1]  # (edge) seconds left, null until it can be told

    listed = await phone.request({"type": "rag_list"}, "rag_list_response")
    [doc] = listed["documents"]
    assert {k: doc[k] for k in ("doc_id", "source", "chunks")} == {
        "doc_id": reply["docId"], "source": "house-notes.txt", "chunks": reply["chunks"]}

    phone.send({"type": "message", "content": "Where is the spare key to the shed hidden?",
                "sessionId": "rag"})
    while (msg := await phone.recv())["type"] == "chunk":
        pass
    assert msg["type"] == "message_end"
    assert msg["sources"][0]["source"] == "house-notes.txt"
    # ... and the model really got the file's chunk right before the question
    *_, question = recorder.prompts[-1]
    assert question.role == "user"
    assert question.content.startswith(NOTES_HEADER + "\n")
    assert "blue watering can" in question.content
    assert question.content.endswith("Question: Where is the spare key to the shed hidden?\n"
                                     "Answer the question briefly, using only the notes above.")
    assert "blue watering can" not in recorder.prompts[-1][0].content  # not in the system
    assert daemon.chat is not None
    assert daemon.chat.knowledge is not None

    deleted = await phone.request({"type": "rag_delete", "docId": reply["docId"]},
                                  "rag_delete_response")
    assert deleted == {"type": "rag_delete_response", "deleted": True, "docId": reply["docId"]}
    assert await daemon.chat.knowledge.store.counts() == (0, 0, 0)


async def test_pdf_upload(phone: PhoneClient) -> None:
    pdf = make_pdf([DOCUMENTS["boiler.txt"], SECRET])
    reply = await phone.upload("../../manual.pdf", pdf)
    assert reply["filename"] == "manual.pdf"  # only the base name


async def rag_error(phone: PhoneClient, *messages: dict[str, Any]) -> dict[str, Any]:
    for message in messages:
        phone.send(message)
    while True:
        msg = await phone.recv()
        if msg["type"] == "rag_error":
            return msg


async def test_bad_uploads_are_refused_and_nothing_is_stored(phone: PhoneClient,
                                                             daemon: Daemon) -> None:
    start = {"type": "rag_upload_start", "uploadId": "u1", "filename": "a.txt",
             "totalChunks": 2}
    chunk = {"type": "rag_upload_chunk", "uploadId": "u1", "index": 0,
             "content": base64.b64encode(b"hello").decode()}
    cases = [
        ([{**start, "totalChunks": 100_000}], "a.txt: this file is larger than the box takes"),
        ([start, {**chunk, "index": 7}], "out of range"),
        ([{**start, "uploadId": "u2"}, {**chunk, "uploadId": "u2"},
          {**chunk, "uploadId": "u2"}], "already received"),
        ([{**start, "uploadId": "u3"}, {**chunk, "uploadId": "u3", "content": "%%%"}],
         "base64"),
        ([{**chunk, "uploadId": "nope"}], "no such upload"),
    ]
    for messages, reason in cases:
        assert reason in (await rag_error(phone, *messages))["message"]
    binary = await rag_error(phone, {**start, "uploadId": "u4", "totalChunks": 1},
                             {**chunk, "uploadId": "u4",
                              "content": base64.b64encode(b"\x00\x01\x02binary").decode()})
    assert "a.txt" in binary["message"]
    assert "is not a text or PDF file" in binary["message"]
    assert daemon.chat is not None
    assert daemon.chat.knowledge is not None
    assert await daemon.chat.knowledge.store.counts() == (0, 0, 0)
    with pytest.raises(ReplyError):
        await phone.upload("empty.txt", b"")


async def test_oversized_file_refused(settings: Any, llama_provider: Any) -> None:
    box = Daemon(dataclasses.replace(settings, rag_max_file_bytes=20_000),
                 provider=llama_provider)
    await box.start()
    try:


        key = await approved(box)
        async with PhoneClient(key, f"http://127.0.0.1:{box.port}") as phone:
            with pytest.raises(ReplyError, match="big.txt: this file is larger than the box "
                                                 "takes .* Split it"):
                await phone.upload("big.txt", b"x" * 50_000)
    finally:
        await box.stop()


async def test_idle_upload_is_discarded(phone: PhoneClient, daemon: Daemon) -> None:
    assert daemon.peers is not None
    [peer] = daemon.peers.peers.values()
    [session] = peer.sessions
    session.uploads.idle_timeout_s = 0.2  # quick timing
    session._upload_sweep_s = 0.1
    phone.send({"type": "rag_upload_start", "uploadId": "slow", "filename": "a.txt",
                "totalChunks": 3})
    msg = await phone.recv(wait=10)
    assert msg == {"type": "rag_error", "uploadId": "slow",
                   "detail": "upload was idle too long and was discarded",
                   "message": "a.txt: the upload stopped part-way (nothing came for a minute), "
                              "so it was not added. Please add it again."}
    assert session.uploads.buffered == 0
    assert session.uploads.in_progress == 0
    async with aclosing(phone.ask("Say ok.", "after-idle")) as stream:
        assert "".join([p async for p in stream]).strip()


async def test_the_embedder_loads_only_when_needed(settings: Any, llama_model: Any) -> None:
    """With tools off and no documents a chat never loads it; a document, or tools (the
    router embeds each request), do."""
    from nekoni_edge.llm.llama import LlamaProvider
    from nekoni_edge.llm.models import default_gguf
    from nekoni_edge.rag.embed import OnDemandEmbedder

    for tools in (False, True):
        provider = LlamaProvider(llama_model, default_gguf(), temperature=0.0, owns_model=False)
        box = Daemon(dataclasses.replace(settings, tools=tools), provider=provider)
        await box.start()
        try:
            embedder = box._embedder
            assert isinstance(embedder, OnDemandEmbedder)
            async with PhoneClient(await approved(box), f"http://127.0.0.1:{box.port}") as phone:
                async with aclosing(phone.ask("Hello there.")) as stream:
                    assert "".join([p async for p in stream])
                assert embedder.loaded is tools
                await phone.upload("note.txt", b"The spare key is under the blue flower pot.")
                assert embedder.loaded
                async with aclosing(phone.ask("Where is the spare key?")) as stream:
                    assert "".join([p async for p in stream])
                assert embedder.loads == 1
        finally:
            await box.stop()
