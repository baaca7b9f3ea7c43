"""The one name rule: how a player's, club's or tournament's name is read, stored and compared.

Every way a name comes in (a game's seats, a hand's player keys, the score-sheet import, the
club's players, registrations, substitutes, clubs and tournaments, the admin) goes through
:func:`clean_name`; names are compared only by :func:`name_key`.

Reading a name (:func:`clean_name`):

1. The text is normalised to Unicode NFC, so "José" typed composed (U+00E9) and decomposed
   (``e`` + U+0301) are stored alike.
2. Invisible and direction-control characters are refused, with the name and the character
   (its code point and Unicode name): format characters (category ``Cf``: U+200B..U+200F,
   U+202A..U+202E, U+2060..U+2069, U+FEFF, U+00AD soft hyphen, tag characters), controls
   (``Cc``: tabs and line breaks included), surrogates (``Cs``), private use (``Co``),
   unassigned code points (``Cn``), the line and paragraph separators (``Zl``, ``Zp``), and
   every other character Unicode says is drawn as nothing (its ``Default_Ignorable_Code_Point``
   set: variation selectors U+FE00..U+FE0F and U+E0100.., the combining grapheme joiner
   U+034F, the Mongolian selectors, the Khmer inherent vowels U+17B4/U+17B5, the Hangul
   fillers U+115F, U+1160, U+3164, U+FFA0) and the blank Braille pattern U+2800, which
   looks like a space but is not one.
   Two exceptions, where an invisible character is part of what was written:

   - the scripts of South Asia (Devanagari, Bengali and Assamese, Gurmukhi, Gujarati, Oriya,
     Tamil, Telugu, Kannada, Malayalam, Sinhala: U+0900..U+0DFF), whose spelling may need a
     joiner: a ZERO WIDTH NON-JOINER (U+200C) or ZERO WIDTH JOINER (U+200D) directly between
     two characters of those scripts is kept;
   - emoji as phone keyboards type them (Unicode's emoji sequences, UTS #51): a variation
     selector U+FE0E or U+FE0F directly after an emoji (``❤️``: U+2764 U+FE0F), and in a
     keycap after ``0``-``9``, ``#`` or ``*`` when U+20E3 follows (``1️⃣``); a ZERO WIDTH
     JOINER between two emoji of a ZWJ sequence (``👨‍👩``; the emoji before it may carry its
     selector or a skin tone: ``🏳️‍🌈``, ``👩🏽‍💻``); the tag characters of a subdivision flag
     (U+E0020..U+E007E ending with U+E007F) after the black flag U+1F3F4. Skin tones
     (U+1F3FB..U+1F3FF) and the regional indicators of a country's flag are visible
     characters and pass as any other. An emoji is read here, with the standard library's
     data only, as a character of category ``So`` (other symbol: pictographs, dingbats,
     arrows, the regional indicators) or one of the few emoji Unicode files elsewhere
     (:data:`_EMOJI_OUTSIDE_SO`: ``‼ ⁉ ℹ ↔ ⤴ ⤵ ◻ ◼ ◽ ◾ 〰 〽``).

   The same characters anywhere else (a joiner between Latin letters or at an end, a
   selector after a letter or at the start, a tag after anything but a flag) are invisible
   noise and refused.
3. Runs of space characters (category ``Zs``: the space, the no-break space, the ideographic
   space...) become one ordinary space, and spaces at either end are removed.
4. The result must not be empty and holds at most :data:`MAX_NAME_LENGTH` characters (code
   points, counted after steps 1 to 3).

Inside a hand (:func:`seated_name`, used by ``tonkrules.games.player_of``), a player is
named as the format says, "spelled exactly as in ``players``": exactly after NFC (so a
decomposed accent names the seat), invisible characters refused as above, letter case and
spaces not folded (a name that differs from a seat's only by those is refused, the seat's
spelling suggested).

Comparing names (:func:`name_key`): the cleaned name, NFKC-normalised and case-folded (then
NFKC again, as Unicode's ``NFKC_Casefold`` does), without the emoji variation selectors (as
``NFKC_Casefold`` removes them), so names that differ only in letter case, in composition, in
compatibility forms (full-width ``Ａｎａ``, the ligature ``ﬁ``) or in an emoji's presentation
(``❤️ Love`` and ``❤ Love``) are the same name. The name is stored as typed (after step 1 to
3); only comparisons use the key.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from .errors import PlayerError

__all__ = [
    "MAX_NAME_LENGTH",
    "clean_name",
    "clean_names",
    "is_name",
    "name_key",
    "same_name",
    "seated_name",
    "spelling",
]

#: The most characters (code points, after normalisation) a name may hold.
MAX_NAME_LENGTH = 80

#: Categories of characters a name never holds: format (invisible, direction controls),
#: controls, surrogates, private use, unassigned, line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cf", "Cc", "Cs", "Co", "Cn", "Zl", "Zp"})

#: Characters drawn as nothing whatever their category: Unicode's
#: ``Default_Ignorable_Code_Point`` property (DerivedCoreProperties.txt, stable since
#: Unicode 4), which Python's ``unicodedata`` does not expose, and the blank Braille pattern.
_INVISIBLE_RANGES = (
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
)


def _invisible(char: str) -> bool:
    """Whether ``char`` is drawn as nothing or steers the text's direction: a refused
    category, or one of :data:`_INVISIBLE_RANGES`."""
    if unicodedata.category(char) in _REFUSED_CATEGORIES:
        return True
    point = ord(char)
    return any(low <= point <= high for low, high in _INVISIBLE_RANGES)


_JOINERS = frozenset({"\u200c", "\u200d"})

#: The South Asian (Brahmic) script blocks whose spelling may hold a joiner between letters.
_JOINING_SCRIPTS = (0x0900, 0x0DFF)


def _in_joining_script(char: str) -> bool:
    low, high = _JOINING_SCRIPTS
    return low <= ord(char) <= high


def _joiner_allowed(text: str, i: int) -> bool:
    """A joiner at ``text[i]`` is spelling: between two characters of a joining script."""
    return (
        0 < i < len(text) - 1
        and _in_joining_script(text[i - 1])
        and _in_joining_script(text[i + 1])
    )


#: Emoji whose Unicode category is not ``So`` (emoji-variation-sequences.txt's bases).
_EMOJI_OUTSIDE_SO = frozenset(
    {0x203C, 0x2049, 0x2139, 0x2194, 0x2934, 0x2935, 0x25FB, 0x25FC, 0x25FD, 0x25FE, 0x3030}
    | {0x303D}
)
_VARIATION_SELECTORS = frozenset({"\ufe0e", "\ufe0f"})
_KEYCAP_BASES = frozenset("0123456789#*")
_KEYCAP = "\u20e3"
_SKIN_TONES = (0x1F3FB, 0x1F3FF)
_BLACK_FLAG = "\U0001f3f4"
_TAGS = (0xE0020, 0xE007E)
_CANCEL_TAG = "\U000e007f"


def _emoji(char: str) -> bool:
    """Whether ``char`` is read as an emoji (see the module's rule)."""
    return unicodedata.category(char) == "So" or ord(char) in _EMOJI_OUTSIDE_SO


def _selector_allowed(text: str, i: int) -> bool:
    """A variation selector at ``text[i]`` asks for an emoji's presentation: right after an
    emoji, or after a keycap's base when the keycap mark follows."""
    if i == 0:
        return False
    before = text[i - 1]
    if _emoji(before):
        return True
    return before in _KEYCAP_BASES and text[i + 1 : i + 2] == _KEYCAP


def _emoji_end(text: str, i: int) -> bool:
    """Whether ``text[i]`` ends an emoji: an emoji, or its selector or skin tone after one."""
    char = text[i]
    low, high = _SKIN_TONES
    if char in _VARIATION_SELECTORS or low <= ord(char) <= high:
        return i > 0 and _emoji(text[i - 1])
    return _emoji(char)


def _emoji_joiner_allowed(text: str, i: int) -> bool:
    """A ZERO WIDTH JOINER at ``text[i]`` joins two emoji of a ZWJ sequence."""
    return (
        text[i] == "\u200d"
        and 0 < i < len(text) - 1
        and _emoji_end(text, i - 1)
        and _emoji(text[i + 1])
    )


def _is_tag(char: str) -> bool:
    low, high = _TAGS
    return char == _CANCEL_TAG or low <= ord(char) <= high


def _tag_allowed(text: str, i: int) -> bool:
    """A tag character at ``text[i]`` spells a subdivision flag: the black flag, one or more
    tags, the cancel tag (``🏴`` ``gbeng`` U+E007F)."""
    start = i
    while start > 0 and _is_tag(text[start - 1]):
        start -= 1
    end = i + 1
    while end < len(text) and _is_tag(text[end]):
        end += 1
    run = text[start:end]
    return (
        start > 0
        and text[start - 1] == _BLACK_FLAG
        and len(run) > 1
        and run.find(_CANCEL_TAG) == len(run) - 1
    )


def _written(text: str, i: int) -> bool:
    """Whether the invisible character ``text[i]`` is part of what was written: a joiner of
    a South Asian spelling, or part of an emoji sequence (the module's rule)."""
    char = text[i]
    if char in _JOINERS and _joiner_allowed(text, i):
        return True
    if char in _VARIATION_SELECTORS:
        return _selector_allowed(text, i)
    if char == "\u200d":
        return _emoji_joiner_allowed(text, i)
    if _is_tag(char):
        return _tag_allowed(text, i)
    return False


def _character(char: str) -> str:
    """``U+200B ZERO WIDTH SPACE``: the code point and its Unicode name, where it has one."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X} {name}".rstrip()


def _verify_visible(text: str, nfc: str) -> None:
    """Refuse an invisible or direction-control character of ``nfc`` (``text`` as NFC),
    naming ``text`` (as typed), the character and its 1-based position."""
    for i, char in enumerate(nfc):
        if _invisible(char) and not _written(nfc, i):
            raise PlayerError(
                "name_invisible",
                player=text,
                params={"char": _character(char), "position": i + 1},
            )


def clean_name(text: str, *, max_length: int = MAX_NAME_LENGTH) -> str:
    """A name as stored: NFC, without surrounding spaces, each run of spaces one space.

    Args:
        text: the name as typed or sent (any ``str``).
        max_length: the most characters, counted after normalisation (a player's or a
            seat's name: :data:`MAX_NAME_LENGTH`; a club's or a tournament's: their column's).

    Returns:
        The normalised name (see the module's rule).

    Raises:
        PlayerError: ``name_invisible`` (an invisible or direction-control character; the
            error names the name as typed, the character and its 1-based position),
            ``blank_name`` (nothing left), ``name_too_long`` (more than
            ``max_length`` characters once normalised).
    """
    nfc = unicodedata.normalize("NFC", text)
    _verify_visible(text, nfc)
    words = []
    word: list[str] = []
    for char in nfc:
        if unicodedata.category(char) == "Zs":
            if word:
                words.append("".join(word))
                word = []
        else:
            word.append(char)
    if word:
        words.append("".join(word))
    name = " ".join(words)
    if not name:
        raise PlayerError("blank_name", player=text)
    if len(name) > max_length:
        raise PlayerError("name_too_long", player=text, params={"max": max_length})
    return name


def is_name(text: str) -> bool:
    """Whether :func:`clean_name` accepts ``text``."""
    try:
        clean_name(text)
    except PlayerError:
        return False
    return True


def name_key(name: str) -> str:
    """The key names are compared by: NFKC, case-folded, NFKC again, without the emoji
    variation selectors U+FE0E and U+FE0F (``NFKC_Casefold`` removes every default-ignorable
    character; the others a name may hold are joiners, which are spelling), with
    spaces normalised as :func:`clean_name` does. Two names are the same name when their keys
    are equal. Never raises: a name not yet cleaned gets the key of its spaces collapsed."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    folded = "".join(c for c in folded if c not in _VARIATION_SELECTORS)
    return " ".join("".join(" " if unicodedata.category(c) == "Zs" else c for c in folded).split())


def clean_names(names: Iterable[str]) -> tuple[str, ...]:
    """The names of one table, list or score sheet, each cleaned by :func:`clean_name`, in
    order, no two the same name.

    Raises:
        PlayerError: the first name :func:`clean_name` refuses, or ``duplicate_name`` (two
            of the same :func:`name_key`) naming
            both names as typed (``player``: the later, ``other``: the earlier).
    """
    typed = tuple(names)
    cleaned = tuple(clean_name(name) for name in typed)
    seen: dict[str, str] = {}
    for name, clean in zip(typed, cleaned, strict=True):
        key = name_key(clean)
        if key in seen:
            raise PlayerError("duplicate_name", player=name, params={"other": seen[key]})
        seen[key] = name
    return cleaned


def spelling(text: str) -> str:
    """A name inside a hand, as the format reads it: "spelled exactly as in ``players``",
    where exactly means the same characters once NFC-normalised (a name typed with a
    decomposed accent is spelled as the seat's); no space is removed, no letter case
    folded (the format refuses those differences, suggesting the seat's spelling).

    Raises:
        PlayerError: ``name_invisible``, as :func:`clean_name`.
    """
    nfc = unicodedata.normalize("NFC", text)
    _verify_visible(text, nfc)
    return nfc


def seated_name(name: str, players: Iterable[str]) -> str | None:
    """The one of ``players`` that ``name`` (as typed in a hand) is spelled as, by
    :func:`spelling` (each seat's name NFC-normalised too, for names stored before the
    rule), or None.

    Raises:
        PlayerError: ``name`` holds an invisible or direction-control character.
    """
    spelled = spelling(name)
    for player in players:
        if unicodedata.normalize("NFC", player) == spelled:
            return player
    return None


def same_name(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` are the same name: equal :func:`name_key`."""
    return name_key(a) == name_key(b)
