"""Small reusable PyTorch models for the bridge's end-to-end tests, export
tests and benchmark: a BERT-style encoder, a small CNN, an MLP and a small
transformer language model.  Everything is written with plain tensor ops
(attention by hand: matmul, mask, softmax) so each model exercises the
lowerings rather than fused library kernels."""
import math
from dataclasses import dataclass

import torch
from torch import nn
from torch.nn import functional as F


@dataclass
class BertConfig:
    """Sizes of a BertEncoder; bert_base() gives BERT-base's."""
    vocab_size: int = 64
    hidden: int = 32
    layers: int = 2
    heads: int = 4
    intermediate: int = 64
    max_positions: int = 16
    type_vocab_size: int = 2
    dropout: float = 0.1
    layer_norm_eps: float = 1e-12

    @classmethod
    def bert_base(cls):
        return cls(vocab_size=30522, hidden=768, layers=12, heads=12, intermediate=3072, max_positions=512)


class SelfAttention(nn.Module):
    """Multi-head self-attention written out: projections, scaled scores,
    an additive mask, softmax, dropout, the weighted sum and the output
    projection."""

    def __init__(self, hidden, heads, dropout):
        super().__init__()
        if hidden % heads:
            raise ValueError(f"SelfAttention: hidden {hidden} is not a multiple of heads {heads}")
        self.heads, self.head_dim = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(dropout)

    def _split(self, x):
        batch, seq, _ = x.shape
        return x.view(batch, seq, self.heads, self.head_dim).permute(0, 2, 1, 3)

    def forward(self, x, additive_mask=None):
        """x: (batch, seq, hidden); additive_mask broadcasts to (batch, heads, seq, seq)."""
        batch, seq, hidden = x.shape
        q, k, v = self._split(self.query(x)), self._split(self.key(x)), self._split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_dim)
        if additive_mask is not None:
            scores = scores + additive_mask
        probs = self.dropout(torch.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).reshape(batch, seq, hidden)
        return self.out(ctx)


class BertLayer(nn.Module):
    """Post-LayerNorm encoder layer: attention, residual, LayerNorm, GELU
    feed-forward, residual, LayerNorm."""

    def __init__(self, cfg):
        super().__init__()
        self.attention = SelfAttention(cfg.hidden, cfg.heads, cfg.dropout)
        self.attention_norm = nn.LayerNorm(cfg.hidden, eps=cfg.layer_norm_eps)
        self.intermediate = nn.Linear(cfg.hidden, cfg.intermediate)
        self.output = nn.Linear(cfg.intermediate, cfg.hidden)
        self.output_norm = nn.LayerNorm(cfg.hidden, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.dropout)

    def forward(self, x, additive_mask=None):
        x = self.attention_norm(x + self.dropout(self.attention(x, additive_mask)))
        return self.output_norm(x + self.dropout(self.output(F.gelu(self.intermediate(x)))))


class BertEncoder(nn.Module):
    """A BERT-style encoder: word, position and token-type embeddings,
    LayerNorm, cfg.layers encoder layers; returns the last hidden state."""

    def __init__(self, cfg=None):
        super().__init__()
        cfg = cfg or BertConfig()
        self.cfg = cfg
        self.word_embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden)
        self.position_embeddings = nn.Embedding(cfg.max_positions, cfg.hidden)
        self.token_type_embeddings = nn.Embedding(cfg.type_vocab_size, cfg.hidden)
        self.embedding_norm = nn.LayerNorm(cfg.hidden, eps=cfg.layer_norm_eps)
        self.dropout = nn.Dropout(cfg.dropout)
        self.layers = nn.ModuleList(BertLayer(cfg) for _ in range(cfg.layers))
        self.register_buffer("position_ids", torch.arange(cfg.max_positions).unsqueeze(0), persistent=False)

    def forward(self, input_ids, attention_mask=None):
        """input_ids: (batch, seq) int64; attention_mask: (batch, seq), 1 for
        tokens to attend to, 0 for padding."""
        seq = input_ids.shape[1]
        positions = self.position_ids[:, :seq]
        token_types = torch.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(positions) \
            + self.token_type_embeddings(token_types)
        x = self.dropout(self.embedding_norm(x))
        additive = None
        if attention_mask is not None:
            additive = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, additive)
        return x


class SmallCNN(nn.Module):
    """Two conv blocks (Conv2d, BatchNorm2d, ReLU, max- then average-
    pooling), adaptive average pooling and a linear classifier."""

    def __init__(self, in_channels=3, classes=10, width=8):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(), nn.AvgPool2d(2),
            nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(2 * width, classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


class MLP(nn.Module):
    """Linear layers with ReLU between them: sizes[0] -> ... -> sizes[-1]."""

    def __init__(self, sizes=(16, 32, 32, 4)):
        super().__init__()
        layers = []
        for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
            layers.append(nn.Linear(a, b))
            if i < len(sizes) - 2:
                layers.append(nn.ReLU())
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


class Block(nn.Module):
    """Pre-LayerNorm causal transformer block: attention and a GELU MLP,
    each with dropout on its residual branch."""

    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.attention_norm = nn.LayerNorm(hidden)
        self.attention = SelfAttention(hidden, heads, dropout)
        self.mlp_norm = nn.LayerNorm(hidden)
        self.mlp = nn.Sequential(nn.Linear(hidden, 4 * hidden), nn.GELU(), nn.Linear(4 * hidden, hidden))
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, causal_mask):
        x = x + self.dropout(self.attention(self.attention_norm(x), causal_mask))
        return x + self.dropout(self.mlp(self.mlp_norm(x)))


class TinyLM(nn.Module):
    """A small decoder-only language model: token and position embeddings,
    dropout, causal blocks, a final LayerNorm and a linear head.  Called
    with targets it returns the mean cross-entropy loss, else the logits."""

    def __init__(self, vocab_size=32, hidden=32, layers=2, heads=4, context=16, dropout=0.1):
        super().__init__()
        self.tokens = nn.Embedding(vocab_size, hidden)
        self.positions = nn.Embedding(context, hidden)
        self.dropout = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(hidden, heads, dropout) for _ in range(layers))
        self.norm = nn.LayerNorm(hidden)
        self.head = nn.Linear(hidden, vocab_size)
        causal = torch.full((context, context), -1e9).triu(1)
        self.register_buffer("causal_mask", causal, persistent=False)
        self.register_buffer("position_ids", torch.arange(context), persistent=False)

    def forward(self, tokens, targets=None):
        """tokens: (batch, seq) int64, seq <= context; targets likewise."""
        seq = tokens.shape[1]
        x = self.dropout(self.tokens(tokens) + self.positions(self.position_ids[:seq]))
        mask = self.causal_mask[:seq, :seq]
        for block in self.blocks:
            x = block(x, mask)
        logits = self.head(self.norm(x))
        if targets is None:
            return logits
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1))
