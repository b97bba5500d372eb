"""Loading the box's heavy parts from its settings: its model, an engine on the LAN, the
embedder and the knowledge base over it (each says why when it cannot)."""

from __future__ import annotations

import asyncio
import logging

from nekoni_edge.config import Settings
from nekoni_edge.errors import ModelUnavailable
from nekoni_edge.llm.provider import ModelProvider
from nekoni_edge.llm.remote import FallbackProvider, OpenAIProvider
from nekoni_edge.rag.embed import Embedder, OnDemandEmbedder, TextEmbedder
from nekoni_edge.rag.knowledge import KnowledgeBase
from nekoni_edge.store.database import Database

_LOGGER = logging.getLogger(__name__)


async def load_provider(settings: Settings) -> ModelProvider:
    """Load the configured GGUF (or the embedded default) with llama.cpp."""
    from nekoni_edge.llm.llama import LlamaProvider  # heavy
    from nekoni_edge.llm.models import default_gguf

    path = settings.model_path or default_gguf()
    return await LlamaProvider.load(
        path, n_threads=settings.n_threads, n_ctx=settings.n_ctx, temperature=settings.temperature,
        use_mmap=settings.model_mmap, kv_cache_type=settings.kv_cache_type,
        n_batch=settings.n_batch, state_budget_bytes=settings.model_state_mib * 2**20,
    )


async def start_engine(s: Settings, local: ModelProvider | None) -> FallbackProvider:
    """The OpenAI-compatible engine, with the box's own model (if any) behind it."""
    engine = FallbackProvider(
        OpenAIProvider(s.model_url, s.model_name, api_key=s.model_api_key,
                       timeout_s=s.model_timeout_s, temperature=s.temperature),
        local if s.model_fallback == "local" else None, health_s=s.model_health_s)
    error = await engine.check()
    _LOGGER.info("model engine %s (%s): %s", engine.remote.base, s.model_name,
                 "reachable" if error is None else f"unavailable: {error}")
    engine.start()
    return engine


DISABLED = "disabled in the configuration"  # why a part is off by choice, not broken


async def load_embedder(s: Settings) -> tuple[TextEmbedder | None, str | None]:
    """The embedder, for retrieval and the tool router; None (and why) if neither is on."""
    if not (s.rag or s.tools):
        return None, f"{DISABLED} (rag = false, tools = false)"
    try:
        if s.embedder_keep_s > 0:
            return await asyncio.to_thread(
                OnDemandEmbedder, threads=s.n_threads, fold_weights=s.embedder_fold_weights,
                keep_s=s.embedder_keep_s, cache_dir=s.cache_path,
            ), None
        return await Embedder.open(s.n_threads, s.embedder_fold_weights, s.cache_path), None
    except ModelUnavailable as exc:
        _LOGGER.error("embedder unavailable: %s", exc)  # noqa: TRY400 - said in full
        return None, str(exc)


def load_knowledge(s: Settings, db: Database, embedder: TextEmbedder | None, error: str | None
                   ) -> tuple[KnowledgeBase | None, str | None]:
    """The knowledge base over ``embedder``; None (and why) when it is off or cannot be."""
    if not s.rag:
        return None, f"{DISABLED} (rag = false)"
    if embedder is None:
        _LOGGER.error("knowledge base unavailable: %s", error)
        return None, error
    return KnowledgeBase(embedder, db, top_k=s.rag_top_k, min_score=s.rag_min_score), None
