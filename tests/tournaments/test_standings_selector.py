"""``tournaments.selectors.standings``: the rows equal the pure computation over the entered
results (current hands only, substitutes counting for nobody), in at most three queries on a
cache miss and one on a hit (the registrations' names, part of the key: issue 14), also for
1,000 players x 10 rounds; a new results version, or a player renamed, misses the cache. The
seat results it reads are materialised by ``services.seat_results_write``, which
``services.game_changed`` calls whenever a game's hands change: a hand recorded, corrected or
voided through the scoring services rewrites them and changes the standings."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction as F
from typing import Any

import pytest
from django.core.cache import cache

from scoring import services as scoring
from scoring.models import Game, Hand, ScoreLine, Seat
from tests.tournaments.play import tonk_hand
from tournaments import selectors, services
from tournaments.models import (
    Club,
    Player,
    Registration,
    Round,
    SeatResult,
    Table,
    TableSeat,
    Tournament,
)
from tournaments.standings import Entry, SeatRecord, compute_standings

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _empty_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


# --- building a tournament with bulk_create ---------------------------------------------------


@dataclass(frozen=True)
class Line:
    """One seat's score line in one hand."""

    points: int
    went_out: bool = False
    bid_made: bool | None = None
    won: bool = False


@dataclass
class Built:
    tournament: Tournament
    entries: list[Entry]
    results: list[SeatRecord]  # what the current hands give, computed here, not queried
    registrations: dict[str, Registration] = field(default_factory=dict)


def build(
    *,
    kind: str,
    names: list[str],
    rounds: dict[int, list[dict[str, list[Line]]]],
    rounds_complete: int,
    basis: str = "total",
    missed: str = "average",
    from_round: dict[str, int] | None = None,
    withdrawn_after: dict[str, int] | None = None,
    substitutes: dict[tuple[int, str], str] | None = None,
    stale_revisions: bool = False,
) -> Built:
    """A tournament stored as the services store one, written with ``bulk_create``.

    ``rounds``: round number → tables; a table maps each registered player seated there to
    their lines, one per hand (every seat of a table has as many). ``substitutes``: (round,
    name) → the substitute who played that seat (a scoring seat without a player).
    ``stale_revisions``: every table also gets a superseded first revision of hand 1 and a
    voided hand, with lines that must not count. The seat results are materialised as
    ``services.game_changed`` does, one game at a time.
    """
    from_round, withdrawn_after = from_round or {}, withdrawn_after or {}
    substitutes = substitutes or {}
    club = Club.objects.create(name=f"Club {kind} {len(names)}")
    players = Player.objects.bulk_create(Player(club=club, name=n) for n in names)
    player = dict(zip(names, players, strict=True))
    tournament = Tournament.objects.create(
        club=club,
        name="Open",
        kind=kind,
        round_count=max(rounds, default=1),
        sizes=[2, 3, 4, 5],
        prefer=4,
        hands_per_round=1,
        basis=basis,
        missed_round_score=missed,
        rounds_complete=rounds_complete,
    )
    registrations = Registration.objects.bulk_create(
        Registration(
            tournament=tournament,
            player=player[n],
            from_round=from_round.get(n, 1),
            withdrawn_after=withdrawn_after.get(n),
        )
        for n in names
    )
    registration = dict(zip(names, registrations, strict=True))
    round_rows = Round.objects.bulk_create(
        Round(tournament=tournament, number=number, state=Round.State.PLAYING)
        for number in sorted(rounds)
    )
    round_of = {r.number: r for r in round_rows}

    tables = [(number, spec) for number in sorted(rounds) for spec in rounds[number]]
    games = Game.objects.bulk_create(
        Game(kind=kind, club=club, rules_version="test") for _ in tables
    )
    seats: list[Seat] = []
    hands: list[Hand] = []
    seat_plan = []  # (round, game, seat index, registered name, lines)
    for (number, spec), game in zip(tables, games, strict=True):
        for position, (name, lines) in enumerate(spec.items()):
            sub = substitutes.get((number, name))
            seats.append(
                Seat(
                    game=game,
                    position=position,
                    name=sub or name,
                    player=None if sub else player[name],
                )
            )
            seat_plan.append((number, game, len(seats) - 1, name, lines, sub))
        hand_count = len(next(iter(spec.values())))
        corrected = stale_revisions and hand_count > 0  # hand 1 entered, then corrected
        for n in range(1, hand_count + 1):
            hands.append(_hand(game, n, 2 if corrected and n == 1 else 1, "current"))
        if corrected:
            hands.append(_hand(game, 1, 1, "superseded"))
        if stale_revisions:
            hands.append(_hand(game, hand_count + 1, 1, "voided"))
    Seat.objects.bulk_create(seats)
    Hand.objects.bulk_create(hands)
    hand_of = {(h.game_id, h.number, h.state): h for h in hands}

    lines_out: list[ScoreLine] = []
    results: list[SeatRecord] = []
    for number, game, index, name, lines, sub in seat_plan:
        seat = seats[index]
        for n, line in enumerate(lines, start=1):
            lines_out.append(_line(hand_of[(game.pk, n, "current")], seat, line))
        junk = Line(1000, went_out=True, bid_made=True, won=True)
        if stale_revisions and lines:
            lines_out.append(_line(hand_of[(game.pk, 1, "superseded")], seat, junk))
        if stale_revisions:
            lines_out.append(_line(hand_of[(game.pk, len(lines) + 1, "voided")], seat, junk))
        if lines:
            points = [line.points for line in lines]
            results.append(
                SeatRecord(
                    number,
                    game.pk,
                    seat.pk,
                    None if sub else player[name].pk,
                    sum(points),
                    max(points),
                    min(points),
                    len(lines),
                    sum(line.went_out for line in lines),
                    sum(line.bid_made is True for line in lines),
                    sum(line.won for line in lines),
                )
            )
    ScoreLine.objects.bulk_create(lines_out, batch_size=5000)
    table_rows = Table.objects.bulk_create(
        Table(round=round_of[number], number=i + 1, game=game, state=Table.State.REPORTED)
        for i, ((number, _), game) in enumerate(zip(tables, games, strict=True))
    )
    TableSeat.objects.bulk_create(
        (
            TableSeat(
                table=table,
                round=round_of[number],
                position=position,
                registration=registration[name],
                substitute=substitutes.get((number, name), ""),
            )
            for table, (number, spec) in zip(table_rows, tables, strict=True)
            for position, name in enumerate(spec)
        ),
        batch_size=5000,
    )
    materialise(tournament)
    # Every round is left playing: the latest is the round in play. Where each player's table
    # stands in it: nothing entered yet, or hands (all confirmed: entered by the system); a
    # player not seated in it, or with a substitute in their seat, has no mark.
    in_play: dict[str, str] = {}
    if rounds:
        for spec in rounds[max(rounds)]:
            entered = any(spec.values())
            for name in spec:
                if (max(rounds), name) not in substitutes:
                    in_play[name] = "reported" if entered else "not_reported"
    entries = [
        Entry(
            registration[n].pk,
            player[n].pk,
            n,
            from_round.get(n, 1),
            withdrawn_after.get(n),
            in_play.get(n, ""),
        )
        for n in names
    ]
    tournament.refresh_from_db()
    return Built(tournament, entries, results, registration)


def materialise(tournament: Tournament) -> None:
    """Write the seat results of every table of ``tournament`` from its score lines."""
    for game_id, number in Table.objects.filter(round__tournament=tournament).values_list(
        "game_id", "round__number"
    ):
        services.seat_results_write(
            game_id=game_id, tournament_id=tournament.pk, round_number=number
        )


#: The columns of the stored seat results, in ``tournaments.standings.SeatRecord``'s order.
SEAT_RESULT_COLUMNS = (
    "round_number",
    "game_id",
    "seat_id",
    "player_id",
    "points",
    "max_points",
    "min_points",
    "hands",
    "went_out",
    "bids_made",
    "won",
)


def materialised(tournament: Tournament) -> list[tuple[int, ...]]:
    """The tournament's seat results as stored, sorted, in ``SeatRecord``'s field order."""
    return sorted(
        SeatResult.objects.filter(tournament=tournament).values_list(*SEAT_RESULT_COLUMNS)
    )


def _hand(game: Game, number: int, revision: int, state: str) -> Hand:
    return Hand(
        game=game,
        number=number,
        revision=revision,
        state=state,
        entry_text="{}",
        record_text="{}",
        rules_version="test",
        entered_via=Hand.Via.USER,
    )


def _line(hand: Hand, seat: Seat, line: Line) -> ScoreLine:
    return ScoreLine(
        hand=hand,
        game_id=hand.game_id,
        seat=seat,
        points=line.points,
        went_out=line.went_out,
        bid_made=line.bid_made,
        won=line.won,
    )


def expected(built: Built) -> tuple[object, ...]:
    t = built.tournament
    return tuple(
        compute_standings(
            kind=t.kind,
            basis=t.basis,
            missed=t.missed_round_score,
            entries=built.entries,
            results=built.results,
            rounds_complete=t.rounds_complete,
        )
    )


# --- the scenarios ----------------------------------------------------------------------------


def _rook_evening(**options: object) -> Built:
    """Six players, three rounds: a sit-out, a substitute, a late entry, a withdrawal, a table
    not played, round 3 in progress, and stale revisions everywhere."""
    names = ["Ana", "Ben", "Cyd", "Dee", "Eve", "Lia"]
    out = Line(0, went_out=True)
    rounds = {
        1: [  # Lia enters from round 2; Eve sits out
            {"Ana": [out], "Ben": [Line(15)], "Cyd": [Line(30)], "Dee": [Line(45)]},
        ],
        2: [
            {"Ana": [Line(20)], "Ben": [out], "Cyd": [Line(10)]},  # a substitute plays Cyd
            {"Dee": [Line(5)], "Eve": [out], "Lia": [Line(12)]},
        ],
        3: [  # Dee withdrew after round 2; round 3 is in progress, one table not entered yet
            {"Ana": [Line(7)], "Ben": [Line(9)]},
            {"Cyd": [], "Eve": [], "Lia": []},
        ],
    }
    return build(
        kind="rook",
        names=names,
        rounds=rounds,
        rounds_complete=2,
        from_round={"Lia": 2},
        withdrawn_after={"Dee": 2},
        substitutes={(2, "Cyd"): "Zed"},
        stale_revisions=True,
        **options,  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("basis", "missed"),
    [("total", "average"), ("total", "worst"), ("placement", "average"), ("placement", "zero")],
)
def test_rook_standings_equal_the_pure_computation(basis: str, missed: str) -> None:
    built = _rook_evening(basis=basis, missed=missed)

    result = selectors.standings(built.tournament)

    assert materialised(built.tournament) == sorted(built.results)
    assert result.rows == expected(built)
    assert result.version == built.tournament.results_version
    assert result.rounds_complete == 2
    assert [c.key for c in result.tiebreaks] == ["rounds_out", "best_round"]


def test_rook_standings_values() -> None:
    built = _rook_evening()

    rows = {row.name: row for row in selectors.standings(built.tournament).rows}

    # Round 1: Ana 0, Ben 15, Cyd 30, Dee 45: average 45/2 for Eve (sat out) and Lia (late).
    # Round 2: Ana 20, Ben 0, Dee 5, Eve 0, Lia 12, and Zed in Cyd's seat (counting for
    # nobody): average 37/5 for Cyd. Round 3 is in progress: results so far, no missed round.
    assert rows["Eve"].rounds == {1: (F(45, 2), True), 2: (0, False)}
    assert rows["Lia"].rounds == {1: (F(45, 2), True), 2: (12, False)}
    assert rows["Cyd"].rounds == {1: (30, False), 2: (F(37, 5), True)}
    assert rows["Ana"].rounds == {1: (0, False), 2: (20, False), 3: (7, False)}
    assert {name: row.total for name, row in rows.items()} == {
        "Ana": 27,
        "Ben": 24,
        "Cyd": F(187, 5),
        "Dee": 50,
        "Eve": F(45, 2),
        "Lia": F(69, 2),
    }
    assert [row.name for row in selectors.standings(built.tournament).rows] == [
        "Eve",
        "Ben",
        "Ana",
        "Lia",
        "Cyd",
        "Dee",
    ]
    assert rows["Ana"].tiebreaks == (1, 0) and rows["Cyd"].tiebreaks == (0, 30)
    assert rows["Dee"].withdrawn and not rows["Ana"].withdrawn
    assert rows["Cyd"].games == 1 and rows["Ana"].games == 3


def test_bluke_standings_count_bids_made_and_best_hand_from_current_hands_only() -> None:
    names = ["Ana", "Ben", "Cyd", "Dee"]
    table = {
        "Ana": [Line(62, bid_made=True), Line(-50, bid_made=False)],
        "Ben": [Line(30, bid_made=True), Line(40, bid_made=True)],
        "Cyd": [Line(22, bid_made=True), Line(22, bid_made=None)],
        "Dee": [Line(-10, bid_made=False), Line(0, bid_made=False)],
    }
    built = build(
        kind="bluke", names=names, rounds={1: [table]}, rounds_complete=1, stale_revisions=True
    )

    result = selectors.standings(built.tournament)

    assert materialised(built.tournament) == sorted(built.results)
    assert result.rows == expected(built)
    assert [(r.name, r.total, r.tiebreaks) for r in result.rows] == [
        ("Ben", 70, (2, 40)),
        ("Cyd", 44, (1, 22)),
        ("Ana", 12, (1, 62)),
        ("Dee", -10, (0, 0)),
    ]
    assert [str(c.title) for c in result.tiebreaks] == ["Bids made", "Best hand"]


def test_tonk_standings_count_hands_won() -> None:
    names = ["Ana", "Ben", "Cyd"]
    table = {
        "Ana": [Line(2, won=True), Line(-1)],
        "Ben": [Line(-1), Line(2, won=True)],
        "Cyd": [Line(-1), Line(-1)],
    }
    built = build(kind="tonk", names=names, rounds={1: [table]}, rounds_complete=1)

    result = selectors.standings(built.tournament)

    assert result.rows == expected(built)
    assert [(r.label, r.name, r.tiebreaks) for r in result.rows] == [
        ("1=", "Ana", (1, 1)),
        ("1=", "Ben", (1, 1)),
        ("3", "Cyd", (0, -2)),
    ]
    assert [str(c.title) for c in result.tiebreaks] == ["Hands won", "Best round"]
    assert all(str(c.explanation) for c in result.tiebreaks)


# --- queries and the cache --------------------------------------------------------------------


def test_three_queries_on_a_miss_one_on_a_hit(django_assert_num_queries: Any) -> None:
    # Every call reads the registrations' names (part of the key, issue 14); a miss then the
    # registrations with their tables' standing and the seat results.
    built = _rook_evening()

    with django_assert_num_queries(3):
        first = selectors.standings(built.tournament)
    with django_assert_num_queries(1):
        again = selectors.standings(built.tournament)
    assert again == first


def test_a_player_renamed_behind_the_services_back_misses_the_cache() -> None:
    # Issue 14: no version is bumped (the admin, a migration, a shell): the key still changes.
    built = _rook_evening()
    t = built.tournament
    before = selectors.standings(t)
    assert "Anastasia" not in {r.name for r in before.rows}

    Player.objects.filter(name="Ana").update(name="Anastasia")
    after = selectors.standings(t)

    assert "Anastasia" in {r.name for r in after.rows}
    assert "Ana" not in {r.name for r in after.rows}
    assert after.version == before.version


def test_a_new_results_version_misses_the_cache(django_assert_num_queries: Any) -> None:
    built = _rook_evening()
    t = built.tournament
    before = selectors.standings(t)
    ScoreLine.objects.filter(seat__player__name="Ana", hand__state="current").update(points=99)
    materialise(t)

    with django_assert_num_queries(1):  # the registrations
        assert selectors.standings(t) == before  # same version: the cached rows
    Tournament.objects.filter(pk=t.pk).update(results_version=t.results_version + 1)
    t.refresh_from_db()
    with django_assert_num_queries(3):
        after = selectors.standings(t)

    assert after.version == before.version + 1
    ana = next(r for r in after.rows if r.name == "Ana")
    assert ana.total == 99 * 3


def test_standings_recompute_caches_the_current_version_and_is_safe_twice(
    django_assert_num_queries: Any,
) -> None:
    built = _rook_evening()
    Tournament.objects.filter(pk=built.tournament.pk).update(results_version=5)

    with django_assert_num_queries(4):
        refreshed = selectors.standings_recompute(built.tournament.pk)
    again = selectors.standings_recompute(built.tournament.pk)
    built.tournament.refresh_from_db()
    with django_assert_num_queries(1):  # the registrations: a hit
        served = selectors.standings(built.tournament)

    assert refreshed == again == served
    assert served.version == 5
    assert served.rows == expected(built)


def test_standings_recompute_of_a_deleted_tournament_does_nothing() -> None:
    assert selectors.standings_recompute(10**9) is None


def test_tournament_without_registrations_or_results() -> None:
    built = build(kind="bluke", names=[], rounds={}, rounds_complete=0)

    assert selectors.standings(built.tournament).rows == ()


# --- 1,000 players x 10 rounds ----------------------------------------------------------------


def _big_rook(players: int = 1000, rounds: int = 10, seed: int = 7) -> Built:
    """Rook, tables of 4, one hand a round, everyone playing every round."""
    rng = random.Random(seed)
    names = [f"Player {i:04d}" for i in range(players)]
    plan: dict[int, list[dict[str, list[Line]]]] = {}
    for number in range(1, rounds + 1):
        order = names[:]
        rng.shuffle(order)
        plan[number] = []
        for at in range(0, players, 4):
            seated = order[at : at + 4]
            out = rng.randrange(len(seated))
            plan[number].append(
                {
                    name: [Line(0, went_out=True) if k == out else Line(rng.randint(5, 150))]
                    for k, name in enumerate(seated)
                }
            )
    return build(kind="rook", names=names, rounds=plan, rounds_complete=rounds)


def test_thousand_players_ten_rounds_in_three_queries_then_one(
    django_assert_max_num_queries: Any,
) -> None:
    built = _big_rook()
    assert len(built.results) == 10_000

    with django_assert_max_num_queries(3):
        first = selectors.standings(built.tournament)
    with django_assert_max_num_queries(1):  # the registrations: a hit
        hit = selectors.standings(built.tournament)

    assert hit == first
    assert len(first.rows) == 1000
    assert first.rows == expected(built)
    assert all(len(row.rounds) == 10 and row.games == 10 for row in first.rows)


# --- the seat results follow the scoring services ---------------------------------------------


def _from_score_lines(tournament: Tournament) -> list[tuple[int, ...]]:
    """Each seat's aggregate over the current hands of the tournament's tables, computed here
    from the score lines (not by the materialising SQL), sorted, in ``SeatRecord``'s order."""
    seats: dict[tuple[int, int, int, int | None], list[ScoreLine]] = defaultdict(list)
    lines = ScoreLine.objects.filter(
        game__tournament_table__round__tournament=tournament, hand__state=Hand.State.CURRENT
    ).select_related("seat", "game__tournament_table__round")
    for line in lines:
        number = line.game.tournament_table.round.number
        seats[(number, line.game_id, line.seat_id, line.seat.player_id)].append(line)
    return sorted(
        (
            *key,
            sum(line.points for line in group),
            max(line.points for line in group),
            min(line.points for line in group),
            len(group),
            sum(line.went_out for line in group),
            sum(line.bid_made is True for line in group),
            sum(line.won for line in group),
        )
        for key, group in seats.items()
    )


def in_play_of(tournament: Tournament) -> dict[int, str]:
    """Where each registration's table stands in the round in play (the latest published or
    playing round), read here seat by seat: nothing entered, a hand not confirmed, or every
    current hand confirmed; a substitute's seat marks nobody."""
    rnd = (
        tournament.round_set.filter(state__in=(Round.State.PUBLISHED, Round.State.PLAYING))
        .order_by("-number")
        .first()
    )
    if rnd is None:
        return {}
    marks = {}
    for seat in TableSeat.objects.filter(round=rnd, substitute="").select_related("table"):
        statuses = set(
            Hand.objects.filter(game_id=seat.table.game_id, state=Hand.State.CURRENT).values_list(
                "status", flat=True
            )
        )
        if not statuses:
            marks[seat.registration_id] = "not_reported"
        elif Hand.Status.DISPUTED in statuses:
            marks[seat.registration_id] = "disputed"
        elif statuses - {Hand.Status.CONFIRMED}:
            marks[seat.registration_id] = "provisional"
        else:
            marks[seat.registration_id] = "reported"
    return marks


@pytest.mark.django_db(transaction=True)
def test_hands_recorded_corrected_and_voided_through_scoring_rewrite_the_seat_results(
    club: Club, director: Any, make_players: Callable[[int], list[Player]]
) -> None:
    """The scoring seam runs after each commit: the table's seat results are rewritten from
    its current hands, and the standings of the new results version are computed from them."""
    tournament, _ = services.tournament_create(
        club=club, created_by=director, name="Tonk night", kind="tonk", rounds=1, sizes=[2]
    )
    for player in make_players(4):
        services.registration_add(tournament=tournament, player=player)
    rnd, _ = services.round_seat(tournament=tournament)  # seated by the task, after commit
    services.round_publish(round=rnd)
    table = Table.objects.select_related("game").filter(round=rnd).order_by("number").first()
    assert table is not None
    names = list(table.game.seats.order_by("position").values_list("name", flat=True))
    rng = random.Random(5)

    def current() -> tuple[list[tuple[int, ...]], Any]:
        """The stored seat results (checked against the score lines) and the standings."""
        fresh = Tournament.objects.get(pk=tournament.pk)
        rows = materialised(fresh)
        assert rows == _from_score_lines(fresh)
        marks = in_play_of(fresh)
        entries = [
            Entry(
                r.pk,
                r.player_id,
                r.player.name,
                r.from_round,
                r.withdrawn_after,
                marks.get(r.pk, ""),
            )
            for r in fresh.registrations.select_related("player")
        ]
        served = selectors.standings(fresh)
        assert served.version == fresh.results_version
        assert served.rows == tuple(
            compute_standings(
                kind="tonk",
                basis="total",
                missed="average",
                entries=entries,
                results=rows,
                rounds_complete=fresh.rounds_complete,
            )
        )
        return rows, served

    rows, served = current()
    assert rows == []  # no hand yet
    assert {row.total for row in served.rows} == {0}

    first, _ = scoring.hand_record(game=table.game, entry=tonk_hand(rng, names, names[0]))
    second, _ = scoring.hand_record(game=table.game, entry=tonk_hand(rng, names, names[1]))
    rows, served = current()
    assert [row[7] for row in rows] == [2, 2]  # two hands at each seat of the table
    assert {row.games for row in served.rows} == {0, 1}

    # A correction of hand 1 counts instead of it (corrected again until its scores differ).
    revision, before, shown = first.revision, rows, served
    for _attempt in range(20):
        fixed, _ = scoring.hand_correct(
            game=table.game,
            number=1,
            revision=revision,
            entry=tonk_hand(rng, names, names[0]),
        )
        revision = fixed.revision
        if fixed.scores_cache != first.scores_cache:
            break
    rows, served = current()
    assert rows != before
    assert [row[7] for row in rows] == [2, 2]
    assert served.version > shown.version and served.rows != shown.rows

    # A voided hand no longer counts.
    shown = served
    scoring.hand_void(game=table.game, number=second.number)
    rows, served = current()
    assert served.version > shown.version and served.rows != shown.rows
    assert [row[7] for row in rows] == [1, 1]
    assert sorted(row[4] for row in rows) == sorted(fixed.scores_cache.values())
