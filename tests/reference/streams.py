"""fedbench's counter-based random streams in Python, so that a transcription can draw the
same coins, client samples and minibatches as the run it is compared with. This is the
plumbing of randomness (SplitMix64 keyed by seed, purpose, client, round, step, as documented
in lib/core/random.hpp), not any algorithm: the update rules stay written from the papers.
"""
import math

MASK = (1 << 64) - 1
SEED = 0  # `fedbench run`'s default --seed


def hash_name(name: str) -> int:
    """FNV-1a of a purpose name."""
    h = 0xCBF29CE484222325
    for byte in name.encode():
        h ^= byte
        h = (h * 0x100000001B3) & MASK
    return h


def mix64(z: int) -> int:
    z &= MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


class Stream:
    """Stream(seed, purpose, client=-1, round=0, step=0); client -1 is the server."""

    def __init__(self, seed: int, purpose, client: int = -1, round: int = 0, step: int = 0):
        p = hash_name(purpose) if isinstance(purpose, str) else purpose
        h = mix64(seed ^ 0x6A09E667F3BCC909)
        h = mix64(h ^ p)
        h = mix64(h ^ (client & MASK))
        h = mix64(h ^ (round & MASK))
        self.state = mix64(h ^ (step & MASK))

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        return mix64(self.state)

    def uniform(self) -> float:
        """Uniform on [0, 1), 53 bits."""
        return (self.next_u64() >> 11) * 2.0 ** -53

    def uniform_open0(self) -> float:
        return ((self.next_u64() >> 11) + 1) * 2.0 ** -53

    def below(self, n: int) -> int:
        """Uniform integer in [0, n) (Lemire's multiply-and-reject)."""
        if n <= 1:
            return 0
        m = self.next_u64() * n
        low = m & MASK
        if low < n:
            threshold = ((1 << 64) - n) % n
            while low < threshold:
                m = self.next_u64() * n
                low = m & MASK
        return m >> 64

    def bernoulli(self, p: float) -> bool:
        return self.uniform() < p

    def geometric(self, p: float) -> int:
        if p >= 1.0:
            return 1
        k = math.floor(math.log(self.uniform_open0()) / math.log1p(-p))
        return 1 + int(k)

    def normal(self) -> float:
        u1 = self.uniform_open0()
        u2 = self.uniform()
        return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def phase_key(phase: int, occurrence: int = 0) -> int:
    """The first draw number of a client's oracle in a phase (context.hpp: start_round)."""
    return (phase << 32) | (occurrence << 40)


def minibatch(seed: int, client: int, round: int, draw: int, batch: int, samples: int,
              purpose: str = "oracle-batch"):
    """The indices of a client's minibatch: draw number `draw` (phase_key(phase) + calls so
    far in the phase). Bilevel levels use "oracle-batch-upper" / "oracle-batch-lower"."""
    s = Stream(seed, purpose, client, round, draw)
    return [s.below(samples) for _ in range(batch)]


class Draws:
    """A client's successive minibatches (uniform, with replacement) in one round and phase:
    draw numbers phase_key(phase), phase_key(phase) + 1, ..., one per call of next(). A batch
    size <= 0 is the full local batch: next() gives None and draws nothing."""

    def __init__(self, client, round, batch, samples, phase=0, seed=SEED, occurrence=0):
        self.client, self.round, self.batch, self.samples = client, round, batch, samples
        self.draw, self.seed = phase_key(phase, occurrence), seed

    def next(self):
        if self.batch <= 0:
            return None
        b = minibatch(self.seed, self.client, self.round, self.draw, self.batch, self.samples)
        self.draw += 1
        return b


class Reshuffler:
    """Random-reshuffling minibatches of one client in one round and phase: a fresh permutation
    of the n samples per epoch (Fisher-Yates from the top, stream "oracle-reshuffle" keyed by an
    epoch counter that starts at phase_key(phase)), cut into consecutive chunks of `batch` (<= 0
    or >= n: the whole permutation; the last chunk may be shorter)."""

    def __init__(self, client, round, phase, batch, n, seed=SEED, occurrence=0):
        self.client, self.round, self.n = client, round, n
        self.batch = n if batch <= 0 or batch >= n else batch
        self.epoch = phase_key(phase, occurrence)
        self.pos, self.perm, self.seed = None, None, seed

    def next(self):
        if self.pos is None or self.pos >= self.n:
            s = Stream(self.seed, "oracle-reshuffle", self.client, self.round, self.epoch)
            self.epoch += 1
            perm = list(range(self.n))
            for j in range(self.n, 1, -1):
                k = s.below(j)
                perm[j - 1], perm[k] = perm[k], perm[j - 1]
            self.perm, self.pos = perm, 0
        chunk = self.perm[self.pos:self.pos + self.batch]
        self.pos += len(chunk)
        return chunk


def sampled_clients(seed: int, participation: str, num_clients: int, round: int, phase: int):
    """The sorted client ids fedbench's sampler picks (full, uniform:M, iid:M, bernoulli:Q,
    dropout:M:R); under iid:M an id appears once per draw."""
    if participation == "full":
        return list(range(num_clients))
    mode, arg = participation.split(":")[:2]
    if mode == "uniform":
        s = Stream(seed, "client-sampling", -1, round, phase)
        ids = list(range(num_clients))
        for k in range(int(arg)):  # partial Fisher-Yates
            j = k + s.below(num_clients - k)
            ids[k], ids[j] = ids[j], ids[k]
        return sorted(ids[: int(arg)])
    if mode == "iid":
        s = Stream(seed, "client-sampling", -1, round, phase)
        return sorted(s.below(num_clients) for _ in range(int(arg)))
    if mode == "bernoulli":
        return [i for i in range(num_clients)
                if Stream(seed, "client-sampling", i, round, phase).bernoulli(float(arg))]
    if mode == "dropout":
        return dropout_responders(seed, participation, num_clients, round, phase)
    raise ValueError(f"participation {participation!r}")


def participants(seed: int, participation: str, num_clients: int, round: int, phase: int,
                 redraw: bool = False):
    """(client, occurrence) for every sampled slot of (round, phase), in client order: a client
    drawn twice under iid:M runs twice, its second run with occurrence 1 (fresh streams,
    phase_key(phase, 1)) and after its first. redraw: the responders of `dropout:M:R` among
    phase 0's candidates drawn afresh in this phase (redrawn_responders)."""
    if redraw and phase > 0 and participation.startswith("dropout:"):
        ids = redrawn_responders(seed, participation, num_clients, round, phase)
    else:
        ids = sampled_clients(seed, participation, num_clients, round, 0 if redraw else phase)
    slots, seen = [], {}
    for i in ids:
        slots.append((i, seen.get(i, 0)))
        seen[i] = seen.get(i, 0) + 1
    return slots


class BilevelDraws:
    """A client's minibatches of one bilevel round and phase: "oracle-batch-upper" and
    "oracle-batch-lower" draws share one counter that starts at phase_key(phase, occurrence) and
    advances once per drawn minibatch (either level); a batch <= 0 is the whole local set: None,
    and nothing is drawn."""

    def __init__(self, client, round, phase, samples_upper, samples_lower, occurrence=0, seed=SEED):
        self.client, self.round, self.seed = client, round, seed
        self.samples = {"upper": samples_upper, "lower": samples_lower}
        self.draw = phase_key(phase, occurrence)

    def next(self, level, batch):
        if batch <= 0:
            return None
        b = minibatch(self.seed, self.client, self.round, self.draw, batch, self.samples[level],
                      purpose=f"oracle-batch-{level}")
        self.draw += 1
        return b


def dropout_responders(seed: int, participation: str, num_clients: int, round: int, phase: int):
    """The sorted responders of `dropout:M:R` at one (round, phase) for a solver that keeps one
    client set per round: M candidates drawn as uniform:M's partial Fisher-Yates (in draw order),
    of which the first M - floor(U R M) respond, U uniform from stream "client-dropout"."""
    mode, m, r = participation.split(":")
    assert mode == "dropout"
    m, r = int(m), float(r)
    ids = _candidates(seed, m, num_clients, round, phase)
    return sorted(ids[:_kept(seed, m, r, round, phase)])


def _candidates(seed, m, num_clients, round, phase):
    """uniform:M's partial Fisher-Yates: the M candidates in draw order."""
    s = Stream(seed, "client-sampling", -1, round, phase)
    ids = list(range(num_clients))
    for k in range(m):
        j = k + s.below(num_clients - k)
        ids[k], ids[j] = ids[j], ids[k]
    return ids[:m]


def _kept(seed, m, r, round, phase):
    """How many of M candidates respond: M - floor(U R M), U from stream "client-dropout"."""
    u = Stream(seed, "client-dropout", -1, round, phase).uniform()
    return m - math.floor(u * r * m)


def redrawn_responders(seed: int, participation: str, num_clients: int, round: int, phase: int):
    """Phase `phase` > 0 of a round that keeps phase 0's candidates (CD-MAGE's same-candidates,
    the authors' code): this phase's drop-out count, and which candidates respond drawn afresh
    by a partial Fisher-Yates over the candidates (stream "client-redraw")."""
    mode, m, r = participation.split(":")
    m, r = int(m), float(r)
    cands = _candidates(seed, m, num_clients, round, 0)
    keep = _kept(seed, m, r, round, phase)
    s = Stream(seed, "client-redraw", -1, round, phase)
    for k in range(keep):
        j = k + s.below(m - k)
        cands[k], cands[j] = cands[j], cands[k]
    return sorted(cands[:keep])
