"""The state key: one layout for every search's transposition table.

A turn-boundary state (the four rows, and every card still in play with its owner)
packs into ``width`` int64 words. The layout is one scheme with three parameters,
built once per search by ``key_layout(max_cards, owner_bits, professional, merge_rows)``:

- ``max_cards``: the most cards in play the search can meet (20 for two known hands
  of 10; the deck size when a hidden pool is in play);
- ``owner_bits``: the owner field's width; it holds ``owner - 1`` (owners 1, 2, ...,
  as the searches number them): ``OWNER_BITS_TWO`` = 1 for two known hands,
  ``OWNER_BITS_ANY`` = 4 in general (players 1..10 and a hidden pool, exact's 15);
- ``professional``: the placement (it changes what a row and a card hold);
- ``merge_rows`` (normal placement; default on): dead rows by cows and live lengths
  counted down (below). Off, every row keeps its length and dead rows stay in last-card
  order: the exact search's key, whose node counts are those of its earlier memo.

Normal placement, as drawn for two known hands (max_cards 20, owner_bits 1: the
equilibrium's 3 words)::

    word 0   | row 0    | row 1    | row 2    | row 3    | count | 0    |
    bit      0          13         26         39         52      57     64
    row      | rank     | length   | cows     |        (ROW_BITS = RANK_BITS + 8)
    bit      0          RANK_BITS  +3         +8
    word 1.. | card 0 | card 1 | ... | card 15 |  (CARDS_PER_WORD = 64 // CARD_BITS)
    card     | owner - 1 | cow code |            (CARD_BITS = owner_bits + 3)
    bit      0           owner_bits   +3

``paired`` (the equilibrium's layout: two words, not three): two cards share a field as
the digits of one number, (first card's field) * CARD_RADIX + (second's), CARD_RADIX =
2**owner_bits * COW_CODES = 10 values a card, so 7 bits a pair; the first pair takes the
7 bits left in word 0 after the count (L_SPARE_PAIRS of them, from L_SPARE_SHIFT), the
other nine fill word 1::

    word 0   | row 0 .. row 3 | count | pair 0 |
    bit      0                52      57       64
    word 1   | pair 1 | pair 2 | ... | pair 9 |     (7 bits each, 63 bits)

In general (max_cards 104, owner_bits 4) a row is 15 bits, the 7-bit count no longer
fits beside four rows and takes word 1 alone, a card is 7 bits, nine a word: 14 words.

- Rows are listed by last card (a row's number never matters). Card values matter
  only through their order and cows, so a row's last card is kept as its *rank*: how
  many cards in play lie below it.
- A row no card in play can reach (rank = count) is *dead*: it only matters through
  its cows (a take picks by cows, and a dead row never has the lowest last card among
  rows of equal cows that matter), so dead rows come last with length 0; merge_rows
  orders them by cows (else they keep their last-card order).
- merge_rows: a live row that fewer cards can reach than it has room for never takes a
  sixth card, so its length counts only down to that: max(length, ROW_LIMIT - cards
  above it). The cards above are counted among all cards in play, which with a hidden
  pool includes pool cards that may never be played: an upper count, so still sound.
- ``count`` (cards in play) is stored because a card field can be 0 (owner 1, cow
  code 0), so the card list alone would not tell its length.
- Cards in play follow ascending, each as (owner - 1, cow code: 1, 2, 3, 5, 7 cows ->
  0..4; two cards with 1 cow share code 0).

Cows taken so far (the ``win`` objective, whose value depends on them): ``with_taken``
appends ``taken_words(seats)`` words after a layout's key, each seat's cows taken this
round in TAKEN_BITS bits, TAKEN_PER_WORD seats a word (``pack_taken``); L_TAKEN_WORD says
where they start (0: no such words).

Professional placement compares distances, so nothing is compressed (for two known
hands: 5 words)::

    word 0, 1 | row | row |        (ROW_BITS_PRO = 22, ROWS_PER_WORD = 2)
    row       | first card | last card | length | cows |
    bit       0            7           14       17     22
    word 2..  | card 0 | ... |     (CARD_BITS = 7 + owner_bits)
    card      | card value | owner - 1 |
    bit       0            7

No key is all zero (a row's length is at least 1, a first card at least 1), so a
table may mark free slots by word 0 == 0. Fields never straddle a word.
"""
from __future__ import annotations

import numpy as np

from ..base.rules import COWS, HAND_SIZE, ROW_COUNT, ROW_LIMIT, STANDARD_DECK
from .engine import COWS_COLUMN, FIRST, LAST, LENGTH, jit, jit_inline

__all__ = ["LAYOUT_FIELDS", "L_COUNT_SHIFT", "L_COUNT_WORD", "L_RANK_BITS", "L_WIDTH",
           "OWNER_BITS_ANY", "OWNER_GONE", "OWNER_P1", "OWNER_POOL", "TAKEN_BITS", "key_layout",
           "key_width", "pack_key", "pack_taken", "state_key", "taken_words",
           "two_hands_layout", "with_taken"]

WORD_BITS = 64
OWNER_BITS_TWO = 1     # two known hands: owner - 1 is 0 or 1
OWNER_BITS_ANY = 4     # players 1..10 and a hidden pool (owner up to 16)
OWNER_GONE = 0         # an entry of this owner is not in play (left out of the key)
OWNER_P1 = 1           # player 1's cards (2.. the known opponents', as the searches number them)
OWNER_POOL = 15        # the exact search's unknown pool (the hidden hands' cards)
TWO_HANDS_CARDS = 2 * HAND_SIZE
# field widths
CARD_VALUE_BITS = 7    # a card, 1..104
LENGTH_BITS = 3        # a row's length, 0..5
ROW_COWS_BITS = 5      # a row's cows, at most 7 + 4 * 5 = 27
COW_CODE_BITS = 3      # a card's cows as a code 0..4
# professional row: field offsets inside the row
PRO_FIRST_SHIFT = 0
PRO_LAST_SHIFT = PRO_FIRST_SHIFT + CARD_VALUE_BITS
PRO_LENGTH_SHIFT = PRO_LAST_SHIFT + CARD_VALUE_BITS
PRO_COWS_SHIFT = PRO_LENGTH_SHIFT + LENGTH_BITS
PRO_ROW_BITS = PRO_COWS_SHIFT + ROW_COWS_BITS
# professional card: the card value, then owner - 1
PRO_CARD_SHIFT = 0
PRO_OWNER_SHIFT = CARD_VALUE_BITS
# normal row: rank at 0, then length, then cows (offsets depend on the rank's width)
RANK_SHIFT = 0
# normal card: owner - 1 at 0, then the cow code
OWNER_SHIFT = 0

COW_CODE = np.array([{0: 0, 1: 0, 2: 1, 3: 2, 5: 3, 7: 4}[int(n)] for n in COWS], np.int64)

# A layout is an int64 array of these fields (indices):
(L_PROFESSIONAL, L_OWNER_BITS, L_RANK_BITS, L_LENGTH_SHIFT, L_COWS_SHIFT, L_ROW_BITS,
 L_ROWS_PER_WORD, L_COUNT_WORD, L_COUNT_SHIFT, L_CARD_BITS, L_COW_CODE_SHIFT,
 L_CARDS_PER_WORD, L_CARDS_WORD, L_WIDTH, L_MERGE_ROWS, L_TAKEN_WORD, L_TAKEN_SEATS,
 L_CARD_RADIX, L_SPARE_PAIRS, L_SPARE_SHIFT) = range(20)
LAYOUT_FIELDS = 20
COW_CODES = 5          # cow codes 0..4
TAKEN_BITS = 8         # a seat's cows this round: at most 171 (every cow of the deck)
TAKEN_PER_WORD = WORD_BITS // TAKEN_BITS


def key_layout(max_cards: int, owner_bits: int, professional: bool,
               merge_rows: bool = True, paired: bool = False) -> np.ndarray:
    """The layout (an int64 array, indices L_*) of keys for states with at most
    ``max_cards`` cards in play and owners ``1..2**owner_bits``; ``merge_rows`` and
    ``paired`` (normal placement): see the module docstring.

    >>> [int(key_layout(20, OWNER_BITS_TWO, p)[L_WIDTH]) for p in (False, True)]
    [3, 5]
    >>> int(key_layout(20, OWNER_BITS_TWO, False, paired=True)[L_WIDTH])
    2
    >>> [int(key_layout(104, OWNER_BITS_ANY, p)[L_WIDTH]) for p in (False, True)]
    [14, 23]
    """
    if not 1 <= max_cards <= STANDARD_DECK or not 1 <= owner_bits <= OWNER_BITS_ANY:
        raise ValueError(f"no key layout for {max_cards} cards and {owner_bits} owner bits")
    layout = np.zeros(LAYOUT_FIELDS, np.int64)
    layout[L_PROFESSIONAL] = professional
    layout[L_OWNER_BITS] = owner_bits
    layout[L_MERGE_ROWS] = merge_rows
    if professional:
        row_bits = PRO_ROW_BITS
        card_bits = CARD_VALUE_BITS + owner_bits
    else:
        rank_bits = max_cards.bit_length()   # a rank or the count, 0..max_cards
        layout[L_RANK_BITS] = rank_bits
        layout[L_LENGTH_SHIFT] = RANK_SHIFT + rank_bits
        layout[L_COWS_SHIFT] = RANK_SHIFT + rank_bits + LENGTH_BITS
        row_bits = rank_bits + LENGTH_BITS + ROW_COWS_BITS
        card_bits = owner_bits + COW_CODE_BITS
        layout[L_COW_CODE_SHIFT] = OWNER_SHIFT + owner_bits
    rows_per_word = WORD_BITS // row_bits
    row_words = -(-ROW_COUNT // rows_per_word)
    used = (ROW_COUNT - (row_words - 1) * rows_per_word) * row_bits  # bits of the last row word
    cards_word = row_words
    if not professional:
        if used + layout[L_RANK_BITS] <= WORD_BITS:  # the count beside the rows
            layout[L_COUNT_WORD], layout[L_COUNT_SHIFT] = row_words - 1, used
        else:                                        # in a word of its own
            layout[L_COUNT_WORD], layout[L_COUNT_SHIFT] = row_words, 0
            cards_word += 1
    cards_per_word = WORD_BITS // card_bits
    fields = max_cards
    if paired and not professional:  # two cards a field, the first in the count's word
        radix = (1 << owner_bits) * COW_CODES
        card_bits = (radix * radix - 1).bit_length()
        cards_per_word = WORD_BITS // card_bits
        spare_shift = layout[L_COUNT_SHIFT] + layout[L_RANK_BITS]
        spare = 0 if layout[L_COUNT_WORD] == cards_word else (WORD_BITS - spare_shift) // card_bits
        fields = max(0, -(-max_cards // 2) - spare)
        layout[L_CARD_RADIX], layout[L_SPARE_PAIRS], layout[L_SPARE_SHIFT] = \
            radix, spare, spare_shift
    layout[L_ROW_BITS] = row_bits
    layout[L_ROWS_PER_WORD] = rows_per_word
    layout[L_CARD_BITS] = card_bits
    layout[L_CARDS_PER_WORD] = cards_per_word
    layout[L_CARDS_WORD] = cards_word
    layout[L_WIDTH] = cards_word + -(-fields // cards_per_word)
    return layout


def taken_words(seats: int) -> int:
    """Words holding ``seats`` seats' cows taken so far (0 for none)."""
    return -(-seats // TAKEN_PER_WORD)


def with_taken(layout: np.ndarray, seats: int) -> np.ndarray:
    """``layout`` with ``taken_words(seats)`` words appended for the seats' cows taken so
    far (``pack_taken``); ``seats`` 0: the layout unchanged.

    >>> int(with_taken(key_layout(20, OWNER_BITS_TWO, False), 2)[L_WIDTH])
    4
    """
    out = layout.copy()
    if seats:
        out[L_TAKEN_WORD] = layout[L_WIDTH]
        out[L_TAKEN_SEATS] = seats
        out[L_WIDTH] = layout[L_WIDTH] + taken_words(seats)
    return out


@jit_inline
def pack_taken(key, layout, taken):
    """Put the seats' cows taken so far (``taken[s]``, s < layout[L_TAKEN_SEATS]) into their
    words of ``key`` (nothing when the layout has none)."""
    if layout[L_TAKEN_WORD] == 0:
        return
    first = layout[L_TAKEN_WORD]
    for s in range(layout[L_TAKEN_SEATS]):
        key[first + s // TAKEN_PER_WORD] |= taken[s] << (TAKEN_BITS * (s % TAKEN_PER_WORD))


def two_hands_layout(professional: bool) -> np.ndarray:
    """The layout for two known hands (the equilibrium): 2 words (cards paired), or 5
    professional."""
    return key_layout(TWO_HANDS_CARDS, OWNER_BITS_TWO, professional, paired=True)


def key_width(layout: np.ndarray) -> int:
    """Words in a key of this layout."""
    return int(layout[L_WIDTH])


@jit_inline
def _rows_by_last(rows, order):
    """Row indices ordered by last card (insertion sort of four)."""
    for r in range(ROW_COUNT):
        j = r - 1
        while j >= 0 and rows[order[j], LAST] > rows[r, LAST]:
            order[j + 1] = order[j]
            j -= 1
        order[j + 1] = r


@jit_inline
def _put(key, index, field_bits, per_word, first_word, value):
    """Field number ``index`` of ``field_bits`` bits (``per_word`` a word, from word
    ``first_word``) |= value."""
    key[first_word + index // per_word] |= value << (field_bits * (index % per_word))


@jit_inline
def _put_card(key, slot, layout, value):
    """Card number ``slot``'s field (``value``) into the key: a field of its own, or
    (paired layouts) a digit of its pair, the first L_SPARE_PAIRS pairs in the count's
    word."""
    radix, bits = layout[L_CARD_RADIX], layout[L_CARD_BITS]
    if radix == 0:
        _put(key, slot, bits, layout[L_CARDS_PER_WORD], layout[L_CARDS_WORD], value)
        return
    pair = slot // 2
    if slot % 2 == 0:
        value *= radix          # the pair's first card is its high digit
    spare = layout[L_SPARE_PAIRS]
    if pair < spare:
        key[layout[L_COUNT_WORD]] += value << (layout[L_SPARE_SHIFT] + bits * pair)
    else:
        pair -= spare
        per_word = layout[L_CARDS_PER_WORD]
        key[layout[L_CARDS_WORD] + pair // per_word] += value << (bits * (pair % per_word))


@jit_inline
def pack_key(rows, cards, owners, n, skip_a, skip_b, layout, key, order):
    """The key of the state with row table ``rows`` and the cards ``cards[:n]``
    (ascending, ``owners`` beside) into ``key`` (``layout[L_WIDTH]`` words).

    Entries whose owner is OWNER_GONE, and the cards ``skip_a`` and ``skip_b`` (the
    turn being played; -1 for none), are not in play. ``order`` is scratch of
    ROW_COUNT ints.
    """
    key[:] = 0
    _rows_by_last(rows, order)
    row_bits, rows_per_word = layout[L_ROW_BITS], layout[L_ROWS_PER_WORD]
    card_bits, cards_per_word = layout[L_CARD_BITS], layout[L_CARDS_PER_WORD]
    cards_word = layout[L_CARDS_WORD]
    if layout[L_PROFESSIONAL]:
        for i in range(ROW_COUNT):
            r = order[i]
            _put(key, i, row_bits, rows_per_word, 0,
                 (rows[r, FIRST] << PRO_FIRST_SHIFT) | (rows[r, LAST] << PRO_LAST_SHIFT)
                 | (rows[r, LENGTH] << PRO_LENGTH_SHIFT)
                 | (rows[r, COWS_COLUMN] << PRO_COWS_SHIFT))
        slot = 0
        for i in range(n):
            c = cards[i]
            if c != skip_a and c != skip_b and owners[i] != OWNER_GONE:
                _put(key, slot, card_bits, cards_per_word, cards_word,
                     (c << PRO_CARD_SHIFT) | ((owners[i] - 1) << PRO_OWNER_SHIFT))
                slot += 1
        return
    length_shift, cows_shift = layout[L_LENGTH_SHIFT], layout[L_COWS_SHIFT]
    cow_code_shift = layout[L_COW_CODE_SHIFT]
    merge = layout[L_MERGE_ROWS]
    count = 0
    for i in range(n):
        c = cards[i]
        count += c != skip_a and c != skip_b and owners[i] != OWNER_GONE
    slot = 0
    live = 0   # rows below the cards seen so far
    for i in range(n):
        c = cards[i]
        if c == skip_a or c == skip_b or owners[i] == OWNER_GONE:
            continue
        while live < ROW_COUNT and rows[order[live], LAST] < c:  # rows below c: rank slot
            r = order[live]
            length = rows[r, LENGTH]
            if merge:
                length = max(length, ROW_LIMIT - (count - slot))
            _put(key, live, row_bits, rows_per_word, 0,
                 (slot << RANK_SHIFT) | (length << length_shift)
                 | (rows[r, COWS_COLUMN] << cows_shift))
            live += 1
        _put_card(key, slot, layout,
                  ((owners[i] - 1) << OWNER_SHIFT) | (COW_CODE[c] << cow_code_shift))
        slot += 1
    for i in range(live, ROW_COUNT):  # dead rows: their order is no matter, so by cows
        order[i] = rows[order[i], COWS_COLUMN]
        j = i - 1
        while merge and j >= live and order[j] > order[i]:
            order[j], order[j + 1] = order[j + 1], order[j]
            j -= 1
    for i in range(live, ROW_COUNT):
        _put(key, i, row_bits, rows_per_word, 0,
             (count << RANK_SHIFT) | (order[i] << cows_shift))
    key[layout[L_COUNT_WORD]] |= count << layout[L_COUNT_SHIFT]


@jit
def _state_key(rows, cards, owners, layout, key):
    order = np.zeros(ROW_COUNT, np.int64)
    pack_key(rows, cards, owners, cards.shape[0], -1, -1, layout, key, order)


def state_key(rows: np.ndarray, cards, owners, layout: np.ndarray) -> tuple[int, ...]:
    """The key (a tuple of words) of the state with row table ``rows`` (engine.row_table)
    and the cards in play ``cards`` with their ``owners`` (1, 2, ...), any order.

    >>> from nimmt.solver.kernels.engine import row_table
    >>> layout = two_hands_layout(False)
    >>> a = state_key(row_table([[3], [10], [20], [30]]), [5, 12], [1, 2], layout)
    >>> b = state_key(row_table([[2], [10], [20], [40]]), [5, 13], [1, 2], layout)
    >>> a == b  # the same order and cows; the top rows are dead, ordered by cows
    True
    """
    pairs = sorted(zip(map(int, cards), map(int, owners)))
    key = np.zeros(int(layout[L_WIDTH]), np.int64)
    _state_key(np.asarray(rows, np.int64), np.array([c for c, _ in pairs], np.int64),
               np.array([o for _, o in pairs], np.int64), layout, key)
    return tuple(int(w) for w in key)
