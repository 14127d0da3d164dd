"""Factories for models nobody here wrote: tiny configs of ``transformers`` and ``timm`` models with
random weights (nothing downloaded), in the shapes their users pass them. The tools must take these
as they take the package's own models; the tests skip them where the libraries are not installed."""

from __future__ import annotations

import torch
from torch import nn

VOCAB = 128
SEQ = 16


def _ids(batch_size: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (batch_size, SEQ))


def gpt2(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """A 2-layer GPT-2: token ids in (int64), a ``ModelOutput`` with logits out."""
    from transformers import GPT2Config, GPT2LMHeadModel

    # use_cache=False: the output holds no KV-cache object, as in a forward a benchmark times
    cfg = GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=VOCAB, n_positions=64,
                     bos_token_id=0, eos_token_id=0, use_cache=False)
    return GPT2LMHeadModel(cfg).eval(), _ids(batch_size)


def bert(batch_size: int) -> tuple[nn.Module, dict[str, torch.Tensor]]:
    """A 2-layer BERT called with keyword arguments: ids and an attention mask."""
    from transformers import BertConfig, BertModel

    cfg = BertConfig(num_hidden_layers=2, hidden_size=64, num_attention_heads=2,
                     intermediate_size=128, vocab_size=VOCAB, max_position_embeddings=64)
    mask = torch.ones(batch_size, SEQ, dtype=torch.long)
    return BertModel(cfg).eval(), {"input_ids": _ids(batch_size), "attention_mask": mask}


def t5(batch_size: int) -> tuple[nn.Module, dict[str, torch.Tensor]]:
    """A 2-layer T5: encoder ids and decoder ids, both keyword arguments."""
    from transformers import T5Config, T5Model

    cfg = T5Config(num_layers=2, num_decoder_layers=2, d_model=64, d_kv=16, d_ff=128, num_heads=4,
                   vocab_size=VOCAB, use_cache=False, decoder_start_token_id=0)
    return T5Model(cfg).eval(), {"input_ids": _ids(batch_size),
                                 "decoder_input_ids": _ids(batch_size)[:, :8]}


def timm_resnet(batch_size: int) -> tuple[nn.Module, torch.Tensor]:
    """A small timm network on 64-pixel images."""
    import timm

    model = timm.create_model("resnet10t", pretrained=False, num_classes=10)
    return model.eval(), torch.randn(batch_size, 3, 64, 64)


def two_inputs(batch_size: int) -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    """A model of two positional inputs, one of them a boolean mask, with a tuple out."""
    return TwoInputs().eval(), (torch.randn(batch_size, 8), torch.rand(batch_size, 8) > 0.5)


class TwoInputs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, keep: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.proj(x) * keep
        return y, y.sum(dim=1)


def bert_call() -> tuple[nn.Module, dict[str, torch.Tensor]]:
    """``python -m snippets.explain``'s contract, ``factory() -> (fn, args)``, with keyword args."""
    return bert(2)
