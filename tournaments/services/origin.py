"""The name under which tournaments listens to scoring, and acts on its games.

``TournamentsConfig.ready`` registers ``tournaments.services.seam.game_changed`` with scoring
under :data:`ORIGIN`, and every call this app makes to a scoring service that changes a game
passes ``origin=ORIGIN``: scoring then does not announce that change back to this app (no echo;
see ``scoring.events``), which does whatever follows the change in the same call.
"""

#: The listener name of tournaments at scoring's seam, and the origin of its own changes.
ORIGIN = "tournaments"
