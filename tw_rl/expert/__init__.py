"""Expert iteration for the CodeCup student: the native bot's deep searches as its teacher.

Each generation the native bot (``tw_rl/native``'s tools binary, ``--selfplay``) plays games against
itself with the current student, the student is trained on the visit distributions, results and
territories of the newest window of those games (``tw_rl.export.distill``), and the new student
is rated against the previous one in the native bot through the referee (``loop.run``).
"""
