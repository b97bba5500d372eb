"""The model seam: ``ModelProvider``, the llama.cpp provider, a scripted provider."""
