"""The zoo's models: real architectures from torchvision, timm, transformers and diffusers, built
from their configs with random weights (speed does not depend on them; nothing is downloaded).
Language models are built with ``use_cache=False``: a forward over a fixed sequence, the work a
benchmark times, returns no KV-cache object.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
from torch import nn

SEQ = 128  # tokens per sequence for the text models: a short prompt or sentence
IMAGE = 224  # pixels per side for the vision models, the size they were published at


@dataclass(frozen=True)
class Entry:
    name: str
    family: str
    library: str
    input: str  # what one sample is, for the page
    build: Callable[[int], tuple[nn.Module, Any]]
    cpu: bool = False  # in the CPU set


FAMILIES = ("convolutional", "vision transformer", "encoder", "decoder", "encoder-decoder",
            "other")


def _images(batch: int, size: int = IMAGE) -> torch.Tensor:
    return torch.randn(batch, 3, size, size)


def _tokens(batch: int, vocab: int, seq: int = SEQ) -> dict[str, torch.Tensor]:
    return {"input_ids": torch.randint(0, vocab, (batch, seq)),
            "attention_mask": torch.ones(batch, seq, dtype=torch.long)}


def _timm(name: str) -> Callable[[int], tuple[nn.Module, torch.Tensor]]:
    def build(batch: int) -> tuple[nn.Module, torch.Tensor]:
        import timm

        return timm.create_model(name, pretrained=False), _images(batch)
    return build


def _torchvision_resnet50(batch: int) -> tuple[nn.Module, torch.Tensor]:
    import torchvision

    return torchvision.models.resnet50(weights=None), _images(batch)


def _hf(model_cls: str, config_cls: str, inputs: Callable[[int, Any], Any], *,
        part: str | None = None, **config: Any) -> Callable[[int], tuple[nn.Module, Any]]:
    """A transformers model from its config class; ``part``: a submodule to keep (``encoder``)."""
    def build(batch: int) -> tuple[nn.Module, Any]:
        import transformers

        cfg = getattr(transformers, config_cls)(**config)
        model = getattr(transformers, model_cls)(cfg)
        return (getattr(model, part) if part else model), inputs(batch, cfg)
    return build


def _text(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    return _tokens(batch, cfg.vocab_size)


def _ids_only(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    return {"input_ids": _tokens(batch, cfg.vocab_size)["input_ids"]}


def _seq2seq(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    # a 128-token source and a 32-token target: a translation or summary step, teacher-forced
    ex = _tokens(batch, cfg.vocab_size)
    ex["decoder_input_ids"] = torch.randint(0, cfg.vocab_size, (batch, 32))
    return ex


def _audio(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    # 30 s of log-mel frames, the window Whisper's encoder always takes
    return {"input_features": torch.randn(batch, cfg.num_mel_bins, 3000)}


def _pixels(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    return {"pixel_values": _images(batch, cfg.image_size)}


def _waveform(batch: int, cfg: Any) -> dict[str, torch.Tensor]:
    return {"input_values": torch.randn(batch, 16000 * 5)}  # 5 s at 16 kHz


def _diffusers(model_cls: str, inputs: Callable[[int], dict[str, torch.Tensor]],
               **config: Any) -> Callable[[int], tuple[nn.Module, Any]]:
    """A diffusers model from its constructor's config (``diffusers`` takes it as keywords)."""
    def build(batch: int) -> tuple[nn.Module, Any]:
        import diffusers

        return getattr(diffusers, model_cls)(**config), inputs(batch)
    return build


def _unet_step(batch: int) -> dict[str, torch.Tensor]:
    # one denoising step of Stable Diffusion 1.5 at 512x512: its 64x64 latent, one timestep,
    # and the 77 embedded tokens of the prompt
    return {"sample": torch.randn(batch, 4, 64, 64), "timestep": torch.tensor(500),
            "encoder_hidden_states": torch.randn(batch, 77, 768)}


def _dit_step(batch: int) -> dict[str, torch.Tensor]:
    # one denoising step of DiT-XL/2 at 256x256: its 32x32 latent, a timestep and a class each
    return {"hidden_states": torch.randn(batch, 4, 32, 32),
            "timestep": torch.randint(0, 1000, (batch,)),
            "class_labels": torch.randint(0, 1000, (batch,))}


_LM = {"use_cache": False}

ZOO: tuple[Entry, ...] = (
    # convolutional
    Entry("resnet50", "convolutional", "torchvision", "3x224x224 image", _torchvision_resnet50,
          cpu=True),
    Entry("convnext_tiny", "convolutional", "timm", "3x224x224 image", _timm("convnext_tiny")),
    Entry("efficientnet_b0", "convolutional", "timm", "3x224x224 image",
          _timm("efficientnet_b0"), cpu=True),
    Entry("mobilenetv3_large", "convolutional", "timm", "3x224x224 image",
          _timm("mobilenetv3_large_100"), cpu=True),
    Entry("regnety_040", "convolutional", "timm", "3x224x224 image", _timm("regnety_040")),
    # vision transformers
    Entry("vit_b16", "vision transformer", "timm", "3x224x224 image",
          _timm("vit_base_patch16_224")),
    Entry("swin_tiny", "vision transformer", "timm", "3x224x224 image",
          _timm("swin_tiny_patch4_window7_224")),
    Entry("deit_small", "vision transformer", "timm", "3x224x224 image",
          _timm("deit_small_patch16_224"), cpu=True),
    # encoders (base sizes are the configs' defaults)
    Entry("bert_base", "encoder", "transformers", f"{SEQ} tokens",
          _hf("BertModel", "BertConfig", _text), cpu=True),
    Entry("roberta_base", "encoder", "transformers", f"{SEQ} tokens",
          _hf("RobertaModel", "RobertaConfig", _text, vocab_size=50265,
              max_position_embeddings=514, pad_token_id=1, type_vocab_size=1)),
    Entry("distilbert", "encoder", "transformers", f"{SEQ} tokens",
          _hf("DistilBertModel", "DistilBertConfig", _text), cpu=True),
    # decoders: ~100 M to ~1.4 B parameters, logits over the whole sequence
    Entry("gpt2", "decoder", "transformers", f"{SEQ} tokens",
          _hf("GPT2LMHeadModel", "GPT2Config", _ids_only, **_LM), cpu=True),
    Entry("llama_1b", "decoder", "transformers", f"{SEQ} tokens",
          # TinyLlama-1.1B's shape: 22 layers of 2048, grouped-query attention (4 KV heads)
          _hf("LlamaForCausalLM", "LlamaConfig", _ids_only, hidden_size=2048,
              intermediate_size=5632, num_hidden_layers=22, num_attention_heads=32,
              num_key_value_heads=4, vocab_size=32000, **_LM)),
    Entry("mistral_small", "decoder", "transformers", f"{SEQ} tokens",
          # Mistral-7B's layer (sliding window, 8 KV heads) at a quarter of its width, 12 deep
          _hf("MistralForCausalLM", "MistralConfig", _ids_only, hidden_size=1024,
              intermediate_size=3584, num_hidden_layers=12, num_attention_heads=8,
              num_key_value_heads=2, vocab_size=32000, **_LM)),
    Entry("qwen2_0.5b", "decoder", "transformers", f"{SEQ} tokens",
          # Qwen2-0.5B's shape: 24 layers of 896, a 151,936-token vocabulary
          _hf("Qwen2ForCausalLM", "Qwen2Config", _ids_only, hidden_size=896,
              intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
              num_key_value_heads=2, vocab_size=151936, tie_word_embeddings=True, **_LM)),
    Entry("phi_1.5", "decoder", "transformers", f"{SEQ} tokens",
          # phi-1.5's shape: 24 layers of 2048, partial rotary embedding
          _hf("PhiForCausalLM", "PhiConfig", _ids_only, hidden_size=2048,
              intermediate_size=8192, num_hidden_layers=24, num_attention_heads=32,
              vocab_size=51200, partial_rotary_factor=0.5, **_LM)),
    # encoder-decoders
    Entry("t5_small", "encoder-decoder", "transformers", f"{SEQ} + 32 tokens",
          _hf("T5Model", "T5Config", _seq2seq, **_LM), cpu=True),
    Entry("bart_base", "encoder-decoder", "transformers", f"{SEQ} + 32 tokens",
          _hf("BartModel", "BartConfig", _seq2seq, d_model=768, encoder_layers=6,
              decoder_layers=6, encoder_attention_heads=12, decoder_attention_heads=12,
              encoder_ffn_dim=3072, decoder_ffn_dim=3072, **_LM)),
    Entry("whisper_base_encoder", "encoder-decoder", "transformers", "30 s of 80 mel bins",
          # the encoder alone: the decoder's work is a generation loop (the Generation page)
          _hf("WhisperModel", "WhisperConfig", _audio, part="encoder", d_model=512,
              encoder_layers=6, decoder_layers=6, encoder_attention_heads=8,
              decoder_attention_heads=8, encoder_ffn_dim=2048, decoder_ffn_dim=2048, **_LM)),
    # others people compile
    Entry("clip_vision_b32", "other", "transformers", "3x224x224 image",
          _hf("CLIPVisionModel", "CLIPVisionConfig", _pixels)),
    Entry("clip_text", "other", "transformers", "77 tokens",
          _hf("CLIPTextModel", "CLIPTextConfig",
              lambda b, cfg: _tokens(b, cfg.vocab_size, cfg.max_position_embeddings))),
    Entry("wav2vec2_base", "other", "transformers", "5 s of 16 kHz audio",
          _hf("Wav2Vec2Model", "Wav2Vec2Config", _waveform)),
    Entry("mixer_b16", "other", "timm", "3x224x224 image", _timm("mixer_b16_224")),
    Entry("mobilevit_s", "other", "timm", "3x224x224 image", _timm("mobilevit_s"), cpu=True),
    # Stable Diffusion 1.5's U-Net (its config's defaults, with SD's 768-wide text embeddings)
    Entry("unet_sd15", "other", "diffusers", "4x64x64 latent + 77 tokens",
          _diffusers("UNet2DConditionModel", _unet_step, sample_size=64,
                     cross_attention_dim=768)),
    # DiT-XL/2 (the transformer's defaults): 28 blocks of 1152, adaptive layer norm
    Entry("dit_xl2", "other", "diffusers", "4x32x32 latent + class",
          _diffusers("DiTTransformer2DModel", _dit_step)),
)


def __getattr__(name: str) -> Callable[[int], tuple[nn.Module, Any]]:
    """Each model's factory by its name, as every tool takes it (``snippets.zoo.catalog:gpt2``)."""
    entry = next((e for e in ZOO if e.name == name), None)
    if entry is None:
        raise AttributeError(name)
    return entry.build
