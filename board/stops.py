# Armed stops: "run output X; stop it by yourself when input Y reaches V" (Klipper's
# trsync and endstop, in one object per running output).
#
# An edge is the input arriving at V after the arming (a cam leaves home first, so a
# head's home edge is one edge). With `edges` 0 the level alone ends the motion (the
# lid run towards a stop it already touches ends at once). Edges closer than
# `blank_ms` to the start are not counted (a switch bouncing as the cam leaves).
# After the wanted edge the input must hold V for `confirm_ms` (a plate's dwell);
# dropping back resets the hold, not the count. `max_ms` gives up: reason max_time.


class ArmedStop:
    def __init__(self, stop_id, out_ch, value, in_ch, level, edges, blank_ms,
                 confirm_ms, max_ms, now_ms):
        self.stop_id = stop_id
        self.out_ch = out_ch
        self.value = value
        self.in_ch = in_ch
        self.level = level
        self.edges = edges
        self.blank_ms = blank_ms
        self.confirm_ms = confirm_ms
        self.max_ms = max_ms
        self.started = now_ms
        self.seen = 0           # edges counted
        self.held_since = None  # the condition is met and held since (board ms)

    def reached(self, now_ms, at_level):
        """The input is (at_level) or is not at its level from now on."""
        if not at_level:
            self.held_since = None
            return
        if self.edges and self.seen < self.edges:
            if now_ms - self.started < self.blank_ms:
                return
            self.seen += 1
            if self.seen < self.edges:
                return
        if self.held_since is None:
            self.held_since = now_ms

    def due(self, now_ms):
        """The reason to stop now (wire.REASON_*), or None."""
        if self.held_since is not None and now_ms - self.held_since >= self.confirm_ms:
            return 0
        if self.max_ms and now_ms - self.started >= self.max_ms:
            return 1
        return None

    def next_due(self):
        """The earliest board time due() may say stop, or None."""
        due = None
        if self.held_since is not None:
            due = self.held_since + self.confirm_ms
        if self.max_ms:
            end = self.started + self.max_ms
            if due is None or end < due:
                due = end
        return due
