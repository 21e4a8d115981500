// Tumbleweed CodeCup bot, the native twin of tw_rl/codecup (C++17, standard library only).
//
// One file on purpose: the CodeCup takes one source file.  `tw-rl export --target cpp` copies
// this file and fills EMBEDDED_WEIGHTS with the student's .twnet file as base64 text.
// Sections, in order: bitboards and rules (rules.py), the territory simulation, the weights
// file reader (weights.py: sha256, base64, a small JSON reader), the student network
// (network.py, same fixed-point mixing), the territory evaluator (evaluation.py), the PUCT
// search with tree reuse (search.py) over a capped node pool, the clock (clock.py), the
// CodeCup protocol with its fallbacks (protocol.py, players.py BotPlayer), the test and bench
// modes, and the command line (__main__.py).
//
// Every floating-point expression is written in the order of the Python code, so that the two
// bots compute the same doubles and the search takes the same decisions (see the tests in
// tests/native/).  Build: g++ -std=c++17 -O2 -Wall -Wextra bot.cpp -o bot

// The doubles must be the Python bot's: no a * b + c fused into one rounding (an FMA), which
// g++ would otherwise do in C++ with -march=native on a machine that has FMA.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=off")
#elif defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

// The student network, base64 of a .twnet file, one line per element; {nullptr}: none.
// (tw-rl export --target cpp replaces the next line.)
static const char *const EMBEDDED_WEIGHTS[] = {
    "VFdORVQNChoBAAYA8QIAAMw5AAB7ImFyY2giOiJzdHVkZW50LTEiLCJoaWRkZW4iOjMyLCJtZXRh",
    "Ijp7ImV4cGVydF9nZW5lcmF0aW9uIjoxMH0sIm1peGluZyI6Im1lYW4iLCJxdWFudGl6YXRpb24i",
    "OiJmbG9hdDE2Iiwicm93cyI6OTMsInRlbnNvcnMiOlt7ImR0eXBlIjoiZjE2IiwibmFtZSI6InNl",
    "bGZfdGFibGUiLCJzaGFwZSI6WzkzLDMyXX0seyJkdHlwZSI6ImYzMiIsIm5hbWUiOiJzZWxmX2Jp",
    "YXMiLCJzaGFwZSI6WzMyXX0seyJkdHlwZSI6ImYxNiIsIm5hbWUiOiJtc2dfdGFibGUiLCJzaGFw",
    "ZSI6WzkzLDMyXX0seyJkdHlwZSI6ImYxNiIsIm5hbWUiOiJlZGdlIiwic2hhcGUiOlsxLDMyXX0s",
    "eyJkdHlwZSI6ImYzMiIsIm5hbWUiOiJwb2xpY3lfdyIsInNoYXBlIjpbMzJdfSx7ImR0eXBlIjoi",
    "ZjMyIiwibmFtZSI6InBvbGljeV9iIiwic2hhcGUiOlsxXX0seyJkdHlwZSI6ImYxNiIsIm5hbWUi",
    "OiJoaWRkZW5fdyIsInNoYXBlIjpbMzIsMzJdfSx7ImR0eXBlIjoiZjE2IiwibmFtZSI6ImhpZGRl",
    "bl9nIiwic2hhcGUiOlszMiwyXX0seyJkdHlwZSI6ImYzMiIsIm5hbWUiOiJoaWRkZW5fYiIsInNo",
    "YXBlIjpbMzJdfSx7ImR0eXBlIjoiZjMyIiwibmFtZSI6InZhbHVlX3ciLCJzaGFwZSI6WzMyXX0s",
    "eyJkdHlwZSI6ImYzMiIsIm5hbWUiOiJ2YWx1ZV9iIiwic2hhcGUiOlsxXX0seyJkdHlwZSI6ImYz",
    "MiIsIm5hbWUiOiJwYXNzX3ciLCJzaGFwZSI6WzMyXX0seyJkdHlwZSI6ImYzMiIsIm5hbWUiOiJw",
    "YXNzX2IiLCJzaGFwZSI6WzFdfV0sIndpZHRoIjozMn2GtP2yOSwMsl4l7zAlsBS4NzN/tcExzTLj",
    "LqE4JTGuLxa3tLiWM4oz1DENvIkhczgHNQmrZSmeK2k0TDicNpqz47HaILqwxCw4MFAoJjI8MNun",
    "mzOPrQgkBDGGOQy3nbd1sjA0EDXTKmysha83MZWvSLAkM0w3FzxZt+y1XThLsXaxajRUNTA2F7cp",
    "OoqwcS7Rt0axm7DLsB61WTVmqbszKqeYMga0YgwKNK2v/TTgLrmshjmEuKKjA7WXtCYh0DLlN4e2",
    "nS79MEW6ErhhrF8tvSznJX0uXDBiMCe0fzNytDOs17mZpTihnjSzLmy0UKT6sXOwnDi6r8EolzVu",
    "NKg2PbQFsLmzbTHbMXswrjgatfCleCizsfi11qf1tACuuCz8rIsoryyWNYotay+4q4eoYCtps4+4",
    "BCnCsgouCiplL6Q0wbTKLR6oyjTJsE4z7zEHLhgsnKjrLgeuLbWfLLO2FKXhrn63zq4wNQwpjTd/",
    "My2167ION0otZjLFtLW1vbVfsR4xzy+TL5UqNDSCrec0tqU9tYYvtDFbMsq11DFAsZ41fCefNAg0",
    "BLa8NL+wKLaVNCg2ZLJsMYUtIKEYtWSol66KN1srSy+OqR4yZq1htnOpILEGsSI0QbQGNIg1ObgX",
    "tza42SUttek2P6iJMX6q6qT7NFo0kLAttI4pkTh+L9K1ua17OHS0sDlLv6+5JjfUt1g6PzfjrS81",
    "azPWOvY4fzVaNRY0qzXXvFa+vjMmql4wJjHXNemotztUMCSzi7tDvPY3GDUesxs486Smuy40AJtd",
    "tZ83binEOlMrYzY5OeU2yjTuvUE48K1+wEy1FTR6o1e/Sb29sGs5yTIwume88LyRMsW6KzDJOYim",
    "4LgKvAO8ar2XOfU1tzTCt3s4yriKvE49I7ZCNcC4qcAzvak1NTgDwC69nqb/MIu6aLrtt2rABTro",
    "vI840DdlNM405rw1vpe5Mq6ROuUrabEGNce/rbyCOjYnKzqVvMO+TcD+L/Qy6bkfuQGycbWwNie7",
    "sbv0uEAsCbGINwA3B7jEPGK1E7npPVQsnDDjtQO0mDk/uIy3GjQ1Nf25c6nytw20lTicNZW4Ui73",
    "J8+kZTUrrQYzOywPNQy2NjzvqGWyczrrtBO3E7LfND41xzQRuJkqGrZRObY0Y6Sqn2g2tzP2sz6x",
    "8jGbqTUy+LGwHzywgDaLsMG1459TOBW1FTx1sZCwLjjYqxKuNTZ0NnIrijdYr7E2lC6zt6OxwzEz",
    "MGenVy4yq9m2sDGPtX4hJSxltHw3kbsdpoc6qLGYsLo9bh2OOTi4eqrdOSgrb7EvOas4/DhSMOU4",
    "pjrMuSQw7jY+NRuo8jZzOLI0kr3irEI41zRWMP6w2DSVM++xUjDrpHa8mzpPJg6s5TgxtpE4Fjai",
    "OPAsBSxtsLQ3kbZauoY0wzTXsVc33jfMOBw9Nb4rNFwwyyxaNH084LcbNve3N722Jyi5pDRnNco5",
    "o7kGtNy2hraFv9ozvTT3ugo127tSMuo7Py1mNC21tDRmuMC8xi4QL7k1KDCnMLS9gThxule9pDfi",
    "vGI5zDdFMmK5SL6gvBy9VriwNwc1rL4UMAK5XKmNONs05bkBvK85+jZRvV8hNLOPvaM5mrTTuZQ2",
    "Wbc9uhg8SLo4OQqwwbTwuB20PDCguIst9CiCtLW4p7iduKu0KTyjNNGuibqfqA29KbRqqwe1kzEw",
    "vJ6t4rY8te60dyOXPMkuyqcPL7wy7bfgNwKyfznLM5w5XLb4OKG1fTXFsjstETiRKFK1k7IuotW0",
    "PTABtiqzVLGUNAkz+7bouMyq/TENuNgzeq8hNvAwsC77tJm0aDSxMLg0xzSYtZ6xJavwta41gKtq",
    "tgs17bSErW84v7nTL4WqmzEKNSs2wbdhs9u1gDG2MtEsWC1Ep7o3q6iwtle0p67EMrAgGbQsMQ2x",
    "ZLZqN9gv7rgMMcEx1K9ZMIWvIjnqq+MqJDIqOCAweKjQNR84T7L+J2Kc2zSfNoYwuDcsN/2lY7sK",
    "OYe8UThXqnuz7zSeNeq+w7lyuNu1Wy3nOPY4aLLGMCctFjfPLss3sjEkuPixrZdLNLuY7yKPMZi3",
    "pLFgqLsyVbFTr8ui/DBLM/C0ALZdqOSxGDT0KU41QDV5MXMzg7ZYswOsF613s8A2JbuJqRS0t60c",
    "OdMwQbTLOBO4c7JPs5i4YrXLsc25ZrS8MkGzOS9pNbkeKzdCuTCoh7dbMR21ui/Hr5mx9qzQsTqr",
    "mzSGMmGzmKXttg62pTE1tPi01bWDqpYxiDgyLQIzJLbgrrSkbTYVtfsvfLOAn4i01yV5O8izTbXx",
    "spAzjDYsL820qQ8NqesnGa/Usp6o8TWfK6mzTC2KJ/Q5w7XmNG2vXqQ/rbCkGzFOtD+2lrYOOG+w",
    "2atvtPMvES2PuZe1SjBEuf6stzGnMgw1ljGjNgG7SrSUsBA4GThILNywWbO9sMguA7ghuasyRbh1",
    "rycpBLcNqdY0MjcROXU1vLrRM6Ks7SoesrgyKLXSKfKtpTVnObq3IrNuu2iohbLbsXq6UCmdqy2y",
    "bzLKMgYjMLESMYCtWDT3MOUvNbEVMLO57TVCL+8sIzKYrxGzMLPXLZe0mzlVOLwtxrhctHe2ki1g",
    "NKW1oTlTtFg0FDbxMR40bK/4rOy0g7EHvUu1PbM4szg2hbqmMr01EzXEMKWw17gTrSa5gTlVNK66",
    "E73KsHk2qzW6MWg44LTQMU4nyrGIs441sTTdtAOzDLvhr3G3iqrdsNO5YjKwNJAyLzKkujS8fqvJ",
    "thgxdjRtuqi8FbJXOJs0MjleLiK41rG6HP+umLaYurczJqQUMba08bJzvHkzxDdIvBa8ZTyEOCg2",
    "yrgiunO5ybfxOHy0Pbiwtg21IDQhsqUtvK5WuQStz7SEsmqv5LGrtmUh0yXnt7WwdLuhsSswp7fF",
    "Nf01FzFuMXkapLWiMza11zLgKUK5ardvuuquw7ikNpUzvbgMuT80GLY6q/ywTTMrqqOs9jGwvNU0",
    "EbUXIEq15bCysyw4tid6qXkwhSUYtMKnrr7lLTS1BSxKuBvA27QcOKStvixTsSavRLobqJq0zrtp",
    "pbWwdy6bNe2yVixbtQy6j5kfMy853CyItVs6LqqeMzK5xzPfM5Ev0Thjs/cwSTKFsnwxHzKWODsy",
    "SDCHshsyOCgDOFokmTIvuU88ib++rsuyNQ3NKUMooZ6MNtO98DSQNIG3u7QlMQyvJTKAMCw8bzC7",
    "NQ07sDdTLQczPSocL8C0trrmL2O0bjLvObm6LjVWLyO2vC4auCK/gjXtLN4w2TUPtrC9ii6OMso2",
    "2TNCN+WqpLgYtboykTTJMBw04qlYOVu44jDZtDE4NDMJuZY3XR1GLHi5GLeHtzYwbrYxODg4/bcm",
    "uoa9SjopuZ4yADnxnvEwLTfEs3Kx+LFmrmC9PjIDuuYx87JDusOzOq3COaQ1DjSEsma2IbiNt02Z",
    "eziINJm0SLeZum83N7mSOFG1XrZ3tU06OrETrxotXKwxNWC1Z7A0tiw1dygqLYS4PLFELIqtbDIs",
    "N3cfx7AUMyA28Kl2rQuyxay7M0m1HLPoM4+0VDKWspmtfDhOtYmppa7RqBAzsLtANxqvrqg6s+et",
    "WbIyrJyxjTUuNY04qjBnvUY0JjqVNvEy7S76LbW+CrZoMvWy3C2/tzWyEzHCtUO4nTGLM0s0J7qZ",
    "NqY0mCh/NUy0NbVmLmc3OTo6rDgw8DSduMI4DziSMbMtBbDuNoGgvTXcOeQ3w69jtqix6LGvNN83",
    "3zbwMVewYCp1N840Uzj2tgoyJzehnZw3KzQ1NmA1kTWJNB80jzViI8Q4dzKSqpc1gTnGO486oTRc",
    "NQIyJjPfsMY1PzZCucU6AjORNTo2Bza4MlUzbbaZMwU1PTjQN4A4sDbUt9glFDgXMzsw8DhPKdop",
    "wbkWNZIusq2CsZIvaD55Nw0tM70vs+I4pTGdM8g3L7SNNLizX7gqOFi34DostHyvQzSPsQU5FjCf",
    "LF+0f7EML9UckC3CtHa2wbB1OakrpjQUsQc4FbTtuHy2caCzMwstnzKfL2AxDahTLQc1dLgHsy40",
    "SLPRN5y5T630LFgxmDcksEovDbSToYgnnzRks6E1qLfCM/4vVqwsrke4fjBCtFqm0DN+OhuxMjcI",
    "uPi52bXtrLQ27CaVJkew3y59uBq0IDVgJ5GyqC/zLKMr6rCWN7u2Pjb6so+2ZbKLuJm1CCxGtKM2",
    "GDadqQo0tr2jukAyRThesTo2VLHXMqe22Di9tku0UrGbud4zR7TTMTkvbqDOpWO1yyz2Lcg0BrIA",
    "sBWyYzEGLqE5GzVXMHi3BrTgNSs3BzJbpeawiza9tuQ2ha78v3+0qK79tM+yELPhM+80R7W7qus4",
    "2bpdNDevtCKyMic4WzF+MEQ0djr2tK8wNjfMt7WxKzU/rUC1Y7Q4NBo3B8DRtoA4kTJHsdq0hzJE",
    "Nbk4CLInOhy0bTSOqRY307RTtO04OTWhOH04vDiHOFE4BLFOtMUypjLoNk07PTQCqCPAkDaLMZsw",
    "gDBmMpyxxTgun9QyGbXspKc1QrILNj03GKbdMwM0866JtWOxyzLyp5K1brZ+uPW14Tg7Kc+wwTM6",
    "Nr2fATZEtPOyIjDFtHSonDX/FRY2BDkduEO1HrU4MMWxSrnSNou0JCbrKSYyoy3QtYywfCAWsn2w",
    "Pi+7smA0oynPMRYtgS9ONNW49K6xISws96+gte6pJLTTOW+ySjZlMtwzOjg0s/QyPraRKVws7bR5",
    "OJc6qCyxtTMyuLJENFc1EjVvLja276yWsOspfa8evIMvNTmCuBmyXbnqvJC3/refOJk5jrU5MNW8",
    "CbMGqBQ4fzhSuci5EzPUr701XrCOt8YxPbRuL1Wwd68hMTck+LecOf8w6rd+qpWtmaQSsnypkTeC",
    "MwesebayuvEuMSmPMjUtgbLoMJM0jjAZNniue7tUMkUsLzXDs140zrCENnO5jTVNKnG4YzZWrjQw",
    "cLSFNDaisjQptAKwOq+wrMc55rSDNBe2VLF8tRC34jibM3OwoqxZtIM4RKhsNWispLGLsOcfdrCq",
    "sn6iVLSgMXQw2rUTujS6LbREKZ8g5TTcJq6wJTV+rKy1pa4tLYqzIzO+tEqgQ6E0t/m0/qxmtLey",
    "RjWpOM21vaDGMeu2uaeYpHYqxzMzrqe40rSYq722GrFkrZwudzDOMB6ymbPYMhi3z6wcpq6pMTW/",
    "F1awdTlgtOYwGjGatHCo8zBiqJixqSiHMrauQDh8NK0ykjiInwkyTK1tGpE1SCn0skeyl7BmrbAo",
    "2DT2NK4wcrSEsQEzdbSwKlsoqLbsuoOkFjFvt8QwAzgMrrGt2a5dJvqwcqZFNucy0auNNUawFTIc",
    "tyc4Ma1BNQS4yDbJsjq0qLGEuEWxirfZOfIuZLRSsmKqPryIt6C3fTWtNVmdprJEuZQ0SiQYOYo4",
    "MrR9uZa0H6wdOTq2ELWVsbqwh6TZsLuwXjjkOEm4BTyoMIi1fbHRs9qqjBxPuZ60XquNsDC1zLhq",
    "MyY5LDj6Mwsk5TZKte21tDottDi0LC0gNe42QrqVOGIr0qorLoI40zQtNJ+yurX6M4MxFS3tNBqv",
    "RDMiLls32jMBNmOwNrWdIsAwfbQrsiC2ZLKcqz455KKTta6xKDOyteOzzjHAtN2sESTzN08w1ixx",
    "uV01GCztLfSyQ7URtQY4sy1lMyWpUCvCNmMx3TN+tZEpILAbtqguUavSLH829A7jtI20vTIxpS81",
    "VLHEtk2zzLCCtOgxN6z3HMA4VTePuJIvkjFSHgcwc7P6td0kPzIytT4xYjaBomCxqjJftQ+kTzNN",
    "swe0b7OSs0CxPq1POMSyY67osTy28jIJOJ+uESbSL/w0M7DBNNwvCjWYspS0+jJfs1i2nDAhsJsh",
    "3yi5MW2sNjBQLx440ZTvuKO3tazQLa41cTLRtJAwBTQENJ+z864vOQoubjtyG7UzrrIbtZMsERwR",
    "sBunFrQqpLOzA7gVNhe1ej1KM3i0crsKuQO7c7S3uayxWDEcsXqx9LhLstU0+rLhNn+2g7j0r8y0",
    "GDZmumG8EyW5N2IvZrrAtwmxQrY/tRa4dbLZMC83PLFnto4wpjArMAqzWTA7Lka2JrJSsGozJjaf",
    "sOA1M7AjLyau2rTBtRgsTzjbL182+rRPLC4scbSeLvC2fbQasNO4ECStrDa3lzGntmE1ZzbVMnuz",
    "5LZyt2Ms1igaNeu1HrURpnm4GbgaNRcuFC+sIIW3V7VuOna0pKw/NNwrErVFubknZbX2r3UxuLRr",
    "NDuofrjgtUitwjSSMw418bbHsD24+zRPJM+ySTFhN3+uDjcrrku51DR/LgkqkDlvq6Gv/7NWtIgv",
    "iKuCs9m0rrTLMpg2RjcHMDq1xipIM+iknS7rMCwycLSmM/QZeaZLtzE1lTHDNlW1IzA4ONC0RbCX",
    "rC0v9zmqL+EwHKY9oYk1uLJYKe2k7LUXL5UvqrXxr6Ok+bUos000ZinAN9yvS6PQpGqzg7LOsK+6",
    "uzRGOEY0srG+tFq0yrewM8s4JzgGqGoySjBlMHSygjbctWOzu7PPM0GagTDjLvyrxrTZrmAut7gn",
    "M+44iDSvNawysDWwsb03mjYJMKA2yrf7M6M0zzjEOMMk3DVMoU44ZCb8Md46bDgWMVc1SjhdNW0y",
    "ajAOrVk4VDjCv4E6SriPPwo54akzuHW8Qr+HtDy9XjhVOyI2ybQswLC98jBsNtw3ULzptUG9e7yX",
    "PBy+arglNiC82jUtut8ykjjbvcC5RLkjvHc80LklOa083yoKOU+8ob4ouAa5NDySOcS/XTD8vBA6",
    "s73PvCU4SL6lLIQ4cbz2NiO7dze9OukqzCmJtVW0uSrXMjqw/bWgsVExLrd4J1O1BLansJCooKw8",
    "MlM4hS76oiQ2t6ExtqItwLZiqb6zbiU0uLW01680NOAy4DAzNBzArrB6uM01GjDPNBoyli6VM2Oo",
    "b7T8NkiqsLnFtDk1KTEUskOi4jN9LAewZ6gFsb8rvK+WsAavL7F2M3C5HT+zMiMlbzpdt+y5jLmo",
    "tQo0WDdJrGU3yKt2vB00FjldK+syRzQZvH+82TdSutS2LLzivNU24LqDuDalTbwLtva7z7dwMQa5",
    "E7VKOUwsRjTXtH24ZbuLueQ4VDkrvrC4Iq2uOm27rTiWsW+4TikwODqqkjEGsQAxDzCRNqYvXrLK",
    "LMmYwbYPtWY0abJPNMq6ibUys/gPVbYRM34wirDmNNs4LSEMOPysPysXJ+a0Sy7OGsg4TzQ2MzQw",
    "DDDEOAGufjqLNYu2xTDHM/SrGbmWMO41lS36MG0zpSrRs8gtKrTKsaQsci3xpqKy1zOjNPg1zzXa",
    "u3u0nCQ2tEEyuDkXtIs81qNEuQ4zVTFeuga8BLsaPJA0CTm9uSW90rcyNRa1ByqJu2erPbQluP02",
    "FbklLC64AKxGrYGz5bpINquzXDdpO/W3jrPCNwcxlzc6ORc8brYtsUgtrbwYOJ+rm7kBthm3Uba8",
    "OR25yqq7sbgyJTHbMnE8b7gvtV8kei1EpYygD7QAs0AMtbMst+upLjHGNfAxoSsQOD4zNilBsyA5",
    "UzgWtkKyTJ9bNTYxy7bMNmQ09ZxlNL82uSxptPeyBK7qMdg1tbCjte0tnajEswkvg7X+rYautLPe",
    "NiOwXDZYNX+yM64dvOm5V6CQrzYtZDU8NA+s7y5zMFm0BK/mpOU0AbgyPI67arMcug4xYLNKqBu7",
    "TrIfol+99rgOuNW0CLfwM2QxLbQFs22796o8K1C4IL35M6OyeDUHura2/DfjOdo4szjrMpEvQLWj",
    "OXS8IK+UKDEt6zbNOJS3NDCXOLKpIrYLuI01ErTItwMuOJ4juQ2wVbFrOHu8RzWfsBErBTIJOV4z",
    "B7TJrqqzKzGStH4wMrIYtpGRxjW3saI0BTG9rpgy2h9FN1W4sbTEpky4LLKNtcqoBzL1sUw4+TVU",
    "q8Q9astyPoF0JT6jGHu86xqlPZzXSr5UpUA8HxxLPnaDFT5cGsU9eHbZPfRcBj7rUFk+QKIwPqVn",
    "Rb1riEw+96JAPm6kDT6p10u8d7MAPmuFqz3iwqk8jOkLPiXmYz0pY0U+nSHrPUDluz2J2vs9SLBf",
    "ufEzAD4uknw9i2LfPKM54S6KrJqxiaxEOrA18jUjNE+pXTGvOBW1ATD+tIIxSaMHrm8ntzGNNNsl",
    "JK82r9o35i9mOPcnj7dPMc4xca7SOiSyo7FsNdCw1bE0qQ+ybJoaMx64GJqwshi4360pOS0snbDq",
    "MaStMS2bM5axKi+ctkMxSTlZs382yzB8t241vaNDMe21kbA0tO0sGzg1tCQ0rTPqpjazbiR7tHq0",
    "iLVONVAq6jJzKvezQbAHsCoptjQ4uA6xWDbNuB+yn7UKtBW5+6WYq1UxmLcqJ9SyUbBRt+64wa0w",
    "sggynLKBtZUygaAfuKatYTc0OEezNK+3tWcxZrg7NHm2VTEbNMmrEK9Fski0Sqw0MI+2urc9Moit",
    "CTnHq72vZjj+L6k0C6voMe06r7FVMzuwfLiQMRK2JDTdoGWtby4VrTSzmiRutM+oYbGGNYosxDZ6",
    "M2s7bLk4tFk2SiyvNLmo5Cs9MAAxkLbWIWasbqy8sJm3h6f1rBulY6R7KZA1NbNlNeC2Eq34LUqu",
    "xrczrTI1HrYgoAozwK8erm6x2rHcJH2skbJ3N6GvHTTsNpOs/jNesAuzzbYdKMuzNbiqtAi0fDIf",
    "smKs/ilysrgoCTS6LVwuobF6pvKsHrExtK2wOappMHM0BjVtqj42mTBztZizzzIoJKmzKrZnMS42",
    "iLY2t96pnrgnuE4pS7mGOea5gDeIMGu1zDFDNvIsjTX8OH0sHzEzNc85src/OF07RbYGMDahBDvJ",
    "N0Y+0DUkPBw73DQGtDAxNzooOmG9wDjXM3+wyTGBuieukKaPL3iwHC0/OK01wLPNNbG4qDgLOAmx",
    "sTtnsm0tQbJYN+6wzzaJuqOgeizNLN23pTiPvpg3RromuCE0QLlzuOy1WryuvJuwNDPfMVus+62I",
    "u4+rpTv2JhYxBbgwr2672yyTMDO6Ub8uLo2gXzW9wGK1r7uKMeC7obkAOUi/wLgwuby6vrwpLIs+",
    "p6ymtO40lLyhtac1+KpgMCCuWbt+vewvqrEQvR68+LbJKoswDL+jue+9P7uqLgC3zCxVtAS9l7nA",
    "uV2t3jAePTq6qrd0L3u8oL11svC8M7xatlm9ob6aPGW7SsGZqbu8yDTJMmO6ULthLUO0LDhHtFe2",
    "jKMQIuQ0Bq5VM7M2EjqWuUK8KDTeugS2CjCpMhu7gyxupDm4QDTRu7swjDW8vewwgj1ltvg2wraR",
    "NEK0ERsVNHw0dC+ROss4VbEBLF25gbWkNHcyXSfmM/g4gC9TM+ivqLZDsbeuVTjctH8zOiYJNtG0",
    "K7aEtBg0pCBONTE9cDeCN7q2ZbEormU6WTFJMak4IrUDNVI6LTCmNea3FjXxONMz+jnFNq0wUTq2",
    "tAQ0ia4uNtgvAjhKML2ndy+cM3UqeyRktFghxitOrE00V690tksxHSonOSaxXTDJrX27tjI6L1A3",
    "HibUNhk2fDdStcsv2LUxK0OzHqzosyswJzbXucO+7LjdNGIz4DUKMPa1k7dbtNu6zzgLL1W4+jVD",
    "us2ol6CgNWGaNbjPsLo2O7zttcy/LbHys9kkMrZ0Nm00iLuIurO9vTUYNLuxIDajrZK9Na8LvNYw",
    "kzPQuXI3bbTCMzy0VDLDsrW16bDZJFG+taiuutqpd7YhvKGsJ63/q8Ug7TQovSI1fDSUtV+32Tic",
    "MTE2HzoyNAknFLZWuti2t7hovL+xsqolr3y4qZwjMEC4WTdNNba6JrjQO666vbGkJGsuZLw1p4mz",
    "JzaGN9E7fjQCMLGrgTDouA+0zqAPKpwvKLmUrfI0lzNus0M0wLG3sSQ1lLhZtbc0QLoMLOUnL7RJ",
    "tXouHjKHsE+pGbZVq7U5xq2DMvmuB7PIpbk0DLcMpk2h5Td2tBIhh7jNNCM1X7GFtS+vZDKNtfCy",
    "2bRwMj64W7SQNgw4XLPSrIksti60tEYzLzMPr0s0TrGgJVgslzVWMXmyizLysf8wmqmSqsQ0eLFu",
    "MPymlDgwOUKwQDv+Lb1BKzrhsbW48y1MNn82pzl/KNowu6XhrzCy4T2gtGEvnz/PMBfBLSHru365",
    "+DWjuuQ0xC8QPZWy5SrBs72w5bS5sXW3cLdhMomzhjaAr3+2m6tytW4nZDOwNswuW7UaOJkxLzF5",
    "tSCx+jQ4N/k0CzRXMOSzd6p0Lh4qcbXlMDgtPzbuNLo11y3uNCsr5zL3rWS1Aa6MOqW2VbEILpM0",
    "JzRAMbuWPTS1NnS4ijMLNKs2jbj5LA+8La5CN7e0YzSLs28txzG4Kso2cy4wqX8edyA0svA5XbU5",
    "MmMwhCfLNekp4LfNLIW2KDJOq/8NeTWQsMGqITYNNXSu3arJtF+48bLMNFIsgLk3miKup6OqtAS2",
    "TbR3tK20TbBVM1+yebHgN72w2y8jJCC3DLFSuEu24rVuNA6qe7aHtky6RaoyNQk32zyYOTLA6jQF",
    "MPsl7DaEMq2kX7nRsvo4GLmJMV+qzjeCuKkyKDdFOA+/TTOTNUOzNbWXtnC9tDGuuCqwIzj5KS4t",
    "BTg/tBC5Jju/KjK0wS+3NG6xczBoOTK0ljXJqAoxTjbAsBo42q/GtOGnTjR4tuS2yK96NeA5DrvW",
    "Nja4VbKyuRa03zT4JSI6FDhSt2iw/rgGtFU4hjYAvPQsrrIUNkY4LS39OR+5HLhEMPy0mjjBuLQu",
    "jzjZNxe9KTK1Nx6+hLhxtmY5YaoaOUs3XrhLs06/j7hLNq4wF7+TNdcwtjZeNS61WjxEvNq2tycZ",
    "ulEwFLQoLkQ4Qjaju3WwKTNjvT67g7qLOfOsajByNMK61b0MwFK9ETWWse6/Zzq7uO0sTbNRtqA7",
    "5L0HucMw5bu+Mn6+frIeNUY2lbsQNlI1Yr0BvVC+VzQ0NPYt6zglvKy9ZL0ywAg1KDAKv8ozoLp6",
    "nAa6cDEwOLa8LLIQOTO8nTWtwHe4srSuNQy6VTOys869AKmbv6E4bTAmOew0E7yQvE+9RblZJbIw",
    "+LpQm9e5UDhhu4a2YTwyvJK0+C73uXe46MAQt2YwUDQkOWG4JTDlKnc19Dp6rbq3kLlOsz61ezFF",
    "OiSicrM3NbojC6tTOIe1dDguNtQvRjW9uBs3uamyLf2387AQNus0yjResnG8pzOVOF2wJzhXKpAu",
    "mLQfKXYPxzdgsaA3XLiXJ6CwsCLvJ16yDjdZu+E2OjHspx2z2jk0NHOpUDloH2K5hTY0vBc0orpo",
    "qqUymDEZPAE6F7A5td63Oi+YrBQ62B61NrkyajkUOwgwW6/pKaQ1L7HRNw8zcjgqNF4x/zRJvGA4",
    "ILfOuJa9sigVrFasYDOsOfG3oLREuGi3qDX5OU26CzrKLGs1DzlsMQk2CrnrsywwtilkNTW8PByO",
    "No02T7ZMOe0zRrnwvZK8ES6Anhy4yDiisre1iLnfu2Q6zTLguJY2MrkwN04gri5Ysd25/bgPtI41",
    "/C1IwNAc0bLuMNG1XzljtFG5ArjfvHus0Dv2uHE097mEsom0yqx+siAwgb0rtM26ATLfu4YzYTUA",
    "t6m52TF7tjOxRb9HuFyxVjC1NByvX7QUtRM1frO0tqokdbRfuCavibIPM7E0XysXNdayyqlErXi4",
    "XKgPM+43TTTwJAy2NrTssgav9DSYtG+6wTgpu7w42ysdqC46Rqs8ufS1mL33MuI2szgZt4K79jnu",
    "N544bDX1uO0t3TCItYU4KSo8uG4zQr0JNV+yOzh2Jvs26KkWMYI4iqv/tQMtHTYOs3q4TTP5MO04",
    "FzRHtwe43Dazrn22S7iGNuewTL8gOsEqUK8ENd26oDc1MJe0JjZeNCk5hblFOfI66bMiOvo7DrA8",
    "tTI1LTlTLYc74TnVuoQ5Zbq3q+Q1tDVWNi+/CDVROcKw9zX/OHo8LjqlusQ5rzNgN+G1iTWHvOA1",
    "vDWSN0I4kjjWKEWnI7RnNiM6wTB/Mze5wbZON+44/jr3MUS5jTpDosgwLCVxsz04DzCyOpcxGjlC",
    "Nlqt/bspuguy7TWvLEY4JLlormMu57B+PA82FrmftgmoXS5ascM3Iasfsw07lSwbrb+1prckNJo0",
    "YKxUMKsvkbMIM041obRysJ61CiJSsckt+bQftXWu1LJtMI04PjjTryKlJrTGNGE3DbFaMXypn7Rj",
    "t/2ycrh+rTS13a7cOXkuZCxOM+Qo67QoLLUsQ7KHtBiz6bcoOJKzTK5SsiukxxvwpS8yD7ZsNOCq",
    "3zfhJWkeuiUUOASoDrPDuDsxT71/OQI4X7UAMk2mpLYjvOC8DztxN784269lvHIsCjvpNXGmyLV3",
    "uKy4fLuCObyrITbYKim9nDYVutA4zbXzNUq9GTmrOqWu6LUnt5aqu7Xwsow1QDiONEegfbrhuIk4",
    "5bZPsiK1pSXwtL298jhGtBmxoTFmuUYzu7UcuV+sWjBFNGMzdDrAtJ0vdbAtOHItxSE8nygz3DW4",
    "NXqyuDIMOSy6sTjytTswH7ntu803DDMftc00qDJ1NEytdbzHOYM5bDT3r9wxrbiTOfI4DTynMwy4",
    "7DNRNwY1uTn1OV6oYzAIvD24HTbGI2s0OrIpNdo79jS9NBY4KTvqPUEy2LQVJziv4TgLNpq0SrXT",
    "NFa0eikpMCgxzjQtMqgw37PFtdw0NSnwMi4ywDTRNKKqazG0LIA1ljdhss4sb6gAsJWqObOTtBqp",
    "NTEuNtwnWLV3sQA5Yq04L2A0A7URKU0iFLf5rUMsdK+cOq83yrQCL4GpFbLSNzoqjSBYD80u5ast",
    "NAG0X6wQLNS0ELCEL9i3BzPDtc4zOjTKL/wxPjjVsx24HzSGNCI0RqcTODw0EzQjr8Sxx7FLNM8z",
    "0ie+ubiy8buAOLa65TT6Mbm0byxOt0q4ULwxvfA5gLBoNz65u7xluWSmciBusBmpLb8SvJa7djn9",
    "q9a7NiX7u2Y0sLvBtMwxmDd6urQ50zE8uckt/rl/uMe1my2fNjk0mziwtTu8O7NaNL23nq32tAaz",
    "rbpZvS86wbsiwCqvMawyOTG8RbxHslI0argPNPA26L3FNvK27iQJLUs0hToTNu4wt6KrN0GonjgI",
    "uT46orAuuIa4qbVSNmWxObioNXY2CjanucK2qCsiKr0m7LTZJ6czZjL0teGt3rB6sJu11LjINWo2",
    "tba6tDcu9TDgLW04lDAbhW8vKzRpqQ0qry4jNVi4DjMAtsE1zC05Mdwk9LUJtDgw8TU4NMcygzMF",
    "tNK0HCXTNn4hFa3LMBQgy6rAHpuo96Y4Nwu0WBg6pcao67F8KP+2uCxutpy0obafrDAs5jHwNkIz",
    "PrKPODozoRxoNDk0PLT4rwW1sje2skUnADHqHAQ3/KOeMAm4tDgSMmgymTFoqr81GrR6tsGrxjCh",
    "OBI06a58suIvMLRasC8wdrEUKTmy8zPrM0Y6SqmYMMK3jjkwmre0OqB3KhqpeDVXtN4ysq/lM5C5",
    "VTYLvLY0mzT/q/mk4rDHtM65bbz5OdM0gK1ztCW68bS1see3ujRRtlq/0770tU85Pbd7vFEwuLnD",
    "N1K56rnouHo1erjTNwu0DK/tsau4Arr5s6erWTl5MLM4hbQ3uo6yFTQRr241Jbgbtva3SbRiPCaz",
    "X7xzts81Wje2vBu6dreVs3esP7pNuJE0ILGBMyqr+zrguZCs37eyOEU2hbNBNeO1wai1MMe0NjUA",
    "OJMvArIYNIiuUDKjsZQmqDMGNMa20rD1tPMwxbhrObOzIbc+LHY18LKVtAk11ziGtls3b7NnuHWm",
    "/zFrsmK2AiQEsbiNyyh/tc8tzKCGuXu416rHLg6p3bffuTc0aK2iMBquezLUqdYwGDGoraUqhbaH",
    "MMGsKjQRLhU36zMfsFy5UjbUuJk1vbnrLAquWbd/sCgthrVpuF25/7IXN1A0YbEANEq5NivbtYi2",
    "BCqQLvUxQrbGt8SlGC4KK3e2P6toNG6wEq63Ky80JrXPMTy5WrOnqSk2JzILtdk0wLTdudcwbbWq",
    "tU8wo7ZpMrm3MbaPJem5f7J4uyC7L7SLshMvsrG5q2KyRDhFKtM10DgHt0q6MDVmvYs1y7hMOgGt",
    "nxvKJ5m6ALOUq0a6CziYNfA4YrrDuqa4zC20uIe0FLGLvA+5cC1gNXK4Jr1Juf4otzheKu23bac2",
    "tukn2bIhrkkzdTVkLvQovS/nLxSyGLOdNFW0G7DFMjI2ZrWmsxgujrbQslQuyDGzq+uxvDLhsCe4",
    "LbfOrLK0OLm4LzOyWrbkMjE4hjQPsfs3r68vKeiksLPhqe+ofqgZMmAkRxw4JTa0DbXxMCqnpa3G",
    "tNM0Ozh4tqUuMDXzKIItwiOQrpG0DbuqLWW20igYtnq0srGLNC4qSDl4NfA0CTXGoS22My7jsEe2",
    "FiXAqWipeiRuM6MtsacQtCMwCDC2MEq056zAqpyhxrVnOrk29rQTrYA18olqsYew1LTiNFajQLiX",
    "LB44GbjSNU0hfSTEsRu4XbRxMpMzTbElsK24gjO8Kv0oZLLBLX+m/K4gtbW4mLSFsZCm/7YLNGQ1",
    "4rQ5MliqizPHNs206LTvMpYsSSzIOauyWi12sV6xhSdkNAK2tzXsNNGpe60rtqK0wjT0NKc3JrQJ",
    "uaQ1/jMntasnijQPLm01D7VXtFcmiaS3rhoztrfgsQeuxzeeN2MuNTEfMkO3hTfaN3U3EjBRpBov",
    "FTWDstspgTkeLwkr1zikqzw1w60dtQ4rmqAFNhy0TbGItT0wEDlNOjYwqrJ+sl+zerh/uAM4ojhA",
    "HlO+M7geJNOs6Z1bOREyDTNrujYsEa5NtLmtmrNQNDS+0zNRMM4oWbfqLjC8djTvrKC7lbl7tbO5",
    "T73aNzG41rEQvlS9BjPkKOwykjRpskE3OaWePB04xLg6MO+ysjh7wHOxqzhbp6G8TjgxupM2Rbz1",
    "unAw5DIDNL41Tbg7Mru0kjjTsSy2DjnCtzMrLCwDNfyysDUBM3kl0rInNRagc7VmtcS1AzMKNFOo",
    "hTNTuKixt6G3LDw6RbwxOpK57ixwsrY1OTP7On8yZ6OWuVuyLryHtQg0GK9CLmOxYyf3Mwo2Ujrt",
    "rQa8YqYTqrAuSqkhuCE0yjDJu2kyVrYHNTqwQ7mJub2tWbmyu2i1EzG6Nu45oLIevEe8SDHhMcY0",
    "J7rFvf64vjQPMrG5JrkZszi5WrUmvq69MrZHu9m8vrjQrSI4h71hsyQ5fTKhN9ex77UXqpew6Daf",
    "NQ40V71Xsww1er7DstQ4ILjRt3w6E7BUN1a5raxfsD00ESzgNaQzHJuxNqYniTGVpfmmnjPsK24y",
    "qjXrNYe0zLHyNQI3v7XxM6GqzjYBMBMhRrmUoLYr+jR+tnQvsKnut5o5tblqOjOvOjXyNJS3RSv1",
    "MG648DtvNFs4kqSXu5yzvjmLNzMqRLTsNj237Lg6NcctMLAmM4q2ybVrtVq1rrgQOSGh2DdrI+m7",
    "zrkDvaw3AbRHuvU4VyAbJhe5dDeLta83HDMaNfE4krwTrZiyvDfVuIqu47KXNAQzXbtxtdo4mL4V",
    "Noo1Bb3dLnW6Qzr8OH85PDaBu0q5U7wEuKM7YzezuiEmnLg1NcUrajjYN4C6PTZMGCy0GTtRs9Yl",
    "bjSor9CzhLPLM8SxVh9zOpi3Ja5GOKKyeTR6NS61ICnQKK+w1TR0rP200C6Ks6W0ryPsMnG2xrHy",
    "syq0C7nrLyUx8SDjtb05dLP8r467XTPstQkxQDibJMyrki3eNJk0D7lXMZA3GzqXtHi4xTyju7kt",
    "+yznNNyvsDqTsgMuIzrvuHe9IzZMO7I5V6YxvCm9cznCvc2qrDebL/wxObAcvBkvSr28uQ8yX7gz",
    "ts24Sr3NODo3rLwaOGmwiDTYtNS9BbgfsYy8yDiHtJq6or1iuXMxhjmeN5WqzLbjvDS0kzHaNIg0",
    "5DZKOhCyXTB3stwrDDwNugix/aUWtxE31Lb/tUGvqqxNtOk19ijgqGI1TbIpt1W5VjR4tly05THr",
    "tbe2KapytVq5s7W2NMA4eyydNwys5y6PsdirczV/rcM1jbgpMtMpOipTtzYwfrWewUG+e7UANBy4",
    "ELagKvAhSK0otWs0aCTDq0wt3i74s4y+ki0CLaog8zX+M2Qt7LQds8YurLt4wSs/9v//vivcS79P",
    "Oyu/EUSgvoDAzT9e0qE/2Lnlv4LfbD/rhom/FzkdvyASoz5C6tG+Gf5cvpQKST79igU/fEOjP/Ks",
    "9j54nIi/waGsvrKUHj/Hfa8/uiWKP6nTuL8On46+DsJbP9OX872ApZO+tVk3vVqaIz+uCZo/byfl",
    "PxOYq0C0MZuyQTEDNHyxSbTUsmQ0WC+ANBKhTqCsszMqY7PYMuIwnLV6NJWuihdhOSA0nLXqJyU0",
    "rTaCszgygbUGqrsyvbUGMp6wHpwHK9stWyvKrDquqa10sN8s0TOiM6An0rIXsYE1FCbxLkKsTLdB",
    "rt0wba2ntfS2Ly+lsBMw8bBBsqsxeLSnMRsy8LItKK2x+y0WMe8zvzETrh61OSzKsh4xMS95tgky",
    "VLLaMWM5BzVBr+Kx5zI/NdKynzJOtcc01DeDNLauMClLocW1DasQsww0gCxaL3YtQKqTsSayhrSF",
    "MIo19bYLNZCyfTOVNyw1JKoKrNU1jDZdtSQxPLKqLhY3aTB8sCouMrEVL0GuCquIKd6wPZ7qqygr",
    "XaEjsZapDicxLnWu4K4YLcqueKynsXOpgrAWJ5QwBi23sBExDrFXrNIsaTQCoGOpETBHK+gzMbQl",
    "p14u4ybsMFAt/S3CN6UwFK4jNA6z3DQDrC+22LANNLCo9Kr/sFQpq6T7M02u/rHUI5mvqiY6sdMw",
    "yq+TK1iwY7CaqX+vNaznrTis97D/MFAtLa0hLyCuILENKfKscC8WrCKxQDDbJeEoR6gSsREp0g99",
    "r3IuS7EFr0apTbEXscuqQ6gmMEctQjEGKw0mXKjFrBGxKrHQLCivpKxJLf6uLiwCoasoJ60fMKCw",
    "R7FpMAqypjWLoQSnTzFIMYYxArGiMHIhbSlKJv0ug62BMN2qxLQ7NMCttTORr/i4vi0WMCUfXa07",
    "q68wyyAgM/eq4rCYtIqkY6phsqM1BDTYNLmtAaBfrQMq8SeeLF8xjjQMLzO1ojTUtEgwVi+ht8Id",
    "fDTorJOtMbTXNGWqXTSeH6K2baVkqhuk3axbL26oGSrWKlgw6Chysn2xHbJbsoCxKafFMHmwSCrF",
    "rjcvwi1NKywwE7GYsVWvkCEwMNgtqSdAq8CycDUktXqw7zVUNNEz87BvqGawsrDIMiA29JxuNuWl",
    "g7UENqaycjQPp1G4e7RcNHYxGrOKtJ0u8amuNzyxZLQYKEG0njhPL6G0ErcAuJ4tpif1Mmk3M6mN",
    "shq5ibYzMdAwIJs2JfeRXTjcNsQzjTess00dEa/PuN44pbjWN9A0da9OrFOkuZ6dLrYvm6jpLu2w",
    "gap2sogoKaLgsK+xoK0PsEOvaLIisQAuPrBBJSaokKyyIGYtVyIXqE8un6iJpFwz17KtNqYpZK4J",
    "uie2Ly1kHfwzNC1nKt8uGractKkhVzizqRWtmbHuNH04HS3frMquXDVbqKitKDYhrVswWDVZqLow",
    "8rQcsGM2hR0mNfytS63zq6Ost6s0NOShpi9hrristjU+s0kyfajrtwasCC1GLi+uFayjoU0vYzec",
    "tEG2R7EJrdSowCSFIUIbZ7GMMMUvAiuqJyGwlaQCsTAwArKfL1Uwea8LsiIoQ7EyskawCi5msAeu",
    "Xa4TLsYomCwmrK2wwCDjLG0u9LK7sVIsTyxVLP+tETHNJNWvT7ASlSSrQq+AsBQjaSjAL4Kvu7Db",
    "sHyxNzBIsEywLC22LaSycay8rHIzwbRhr00wnTDWLGi0nTHVqoGuHi4XMX6qRy3mMFG1LTOfmTAq",
    "M6rHtu60haScpaWz2bRkNAAtUjf4tAi15S28KIywsC58r3QwYLFbK8+o1LEVLOitvKVBrUysoqxK",
    "LCqp6S2JKfKmsymerTyxmLC2sG+xXxMsqfux+it1LVU0hrHBMMcxCrdSr1StfTT8Kj4xQi/UKeCy",
    "bC3ssVqtZTastqYzOSWAqNw4CTAStN2pnDYZNlu0XjRntKA04DfKrIkvXaqcHGKko6WkqPqxBKBw",
    "MD0o9bEnIZmqWifqsdodxrA9FlYtby7QqkYwdagDsJwr0KM8sbYtsDDALJiqorR2NoO1di7xLWol",
    "1y8HLTYqnrXkKOCtYTDIMN4vNSW/sAk2prKZM1YlbbXBsPgqeS3rr5y2biblsxMvmbIKtBEyjrGj",
    "N4cwS7RMteK3MDOeLrcp8Tb2KHO2jrgZtH8y8DOds6SwILAUOH40hjWGNDm10qRlpDO21TfitQYr",
    "/jCcKLsgyDR9Lbi2v6xuszA06C8SNREtIB02sjgsF7D2LeYy3bVvNX6yji2LOIszPLSLqxU0DjQW",
    "tToyy7bqLfA1zzO3sVMrYCjMsXCy+6wcM7kyIDUYJV8wva5eLu208jIeMzuxfzXUr2YxGzcNMxKy",
    "0LBoMh01eCoGp0+1HDNZM1izhzQXtqgtATUgtaWkobHeHjslC7ZXNEEw/jMbMaOstbD3Nz0omhf4",
    "ncy0qqs2rIkqy7b2tQWuzbNbLGG2aaa9M3ez7TBrKe607LiduGkz5ix9MEUhSi7dsLa0Bq1wLgM1",
    "AaycMi603zR5N80zKapbqp817ytEqwA15rWdLSQ43bLVJjKszyvdNB01aTPLHnus/LM9rd8zpiyq",
    "MKE1dw+2tQo3P6w8Mc0pm7Wcs5oliit4s/S0FDOEsd035LBztdIuTbS+JyAxfrOystapDDVfLQcv",
    "YzEPm+2yD6hntKAzZzIjtzgxe6gRMK426CgVsjeaOjDINS+wpjM2sgkwHzUhqY0s77IeKowuyDCP",
    "M6mzeS2Uqlysl6SwNGcsQzDLLw2m1jcTtHg17KzKuE6eqipNNHWqu7VVNLGtHDQ5rmmyb6MHKGo0",
    "yJ4DsC+ud6xZMPouIDN5M7cqLaGsGXWzASRYM0a3sjWhstgwMzgbNBa1oanrLJwv16tjLjOxSjQa",
    "NeI0azRANq82V6x9N1U3mjFbuOc3VLbSOAu3PKpftDG2DbRKNxw0LKyLuES2qzZItYgqNLZPtAa1",
    "8zNVoG85NLmutYMzLzaltMc0O7bZti82zagjuAWo+jjMLIewBSW9ts41+yG9tD4pUZ+pJ04mUbnI",
    "ozyznSbytl40ALeOszO1f+JRvfUp9z3uzBs+S87lvGDQFr7vv1s+NyI+vSsfBb6Qaok9SXIrPb6q",
    "uLwSC2g+UWnaPHfGgT2IkQi9KK9ePfsmEz0vTzm+hTWCPrjswbu3pES+LRAAviocGT5LEIC98Yx3",
    "PW0UOb7ZFjo9RHiCPfZwVz7Kb8g7IduyvYQmBT7TsNG+2vNrPrh9l764smS+L2CYPIdtoz6o5IK9",
    "nKnAPUfVED4EpcA+90L8u8wyzj6hJSzAGubmO0PLIL/OJ4U+aEsovTH79Dv4264+miUSPhva/b4W",
    "bae9pRwDP72GFMAwPY2+j/iovos1hT838jO/s6asPgszvL4nlIQ+mrmnvpmFJLwl99y8KbvUPVas",
    "hrzDoc88fikKPpqVfj0LzxI+9mR2vXNy3z0zHeC8cX5RvJt5Gj0UQy4+c3E7Ojdomrxwco29A1bk",
    "vbCfzz3s+hW98YpzvfvtHD3b2fY8frfqvH8HFz5NLt09sCYwPbA+q72CupW97SYdPlE7FT3uEiS+",
    "kJrCvDyjIj3IDkqAxGMnnHHnUzcARl+rHAftrRSXOQX9KZxWcWnuCw==",
    nullptr};
static const char *const EMBEDDED_WEIGHTS_NAME = "student-g0010.twnet";

namespace tw {

// ------------------------------------------------------------------ constants shared with Python
// Each one is the Python bot's; tests/native/ reads the Python values and compares them with
// what `bot --defaults` prints.
constexpr double DEFAULT_BUDGET = 30.0;         // clock.DEFAULT_BUDGET
constexpr double DEFAULT_SAFETY = 0.9;          // clock.DEFAULT_SAFETY
constexpr double DEFAULT_PER_EMPTY = 0.7;       // clock.DEFAULT_PER_EMPTY
constexpr double DEFAULT_C_PUCT = 1.5;          // search.DEFAULT_C_PUCT
constexpr double DEFAULT_FPU_REDUCTION = 0.2;   // search.DEFAULT_FPU_REDUCTION
constexpr int FIXED_BITS = 20;                  // network.FIXED_BITS
constexpr int HIDDEN_BITS = 24;                 // network.HIDDEN_BITS
constexpr double TERRITORY_K = 12.0;            // evaluation.TerritoryEvaluator k
constexpr int FORMAT_VERSION = 1;               // weights.FORMAT_VERSION

// ------------------------------------------------------------------ board and bitboards
constexpr int SIZE = 6;  // the CodeCup board
constexpr int SPAN = 2 * SIZE - 1;
constexpr int STRIDE = 2 * SIZE;  // rules.py layout: cell (c, r) is bit c * STRIDE + r
constexpr int NBITS = STRIDE * STRIDE;
constexpr int NW = (NBITS + 63) / 64;
constexpr int NUM_CELLS = 3 * SIZE * (SIZE - 1) + 1;
constexpr int PASS = NUM_CELLS;
enum { EMPTY = 0, RED = 1, WHITE = 2, NEUTRAL = 3 };
static const int DIRS[6][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}, {1, 1}, {-1, -1}};

struct Bits {
    uint64_t w[NW];
};

inline Bits operator&(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] & b.w[i];
    return r;
}
inline Bits operator|(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] | b.w[i];
    return r;
}
inline Bits operator^(const Bits &a, const Bits &b) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = a.w[i] ^ b.w[i];
    return r;
}
inline Bits operator~(const Bits &a) {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = ~a.w[i];
    return r;
}
inline Bits &operator|=(Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i) a.w[i] |= b.w[i];
    return a;
}
inline Bits &operator&=(Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i) a.w[i] &= b.w[i];
    return a;
}
inline bool operator==(const Bits &a, const Bits &b) {
    for (int i = 0; i < NW; ++i)
        if (a.w[i] != b.w[i]) return false;
    return true;
}
inline bool any(const Bits &a) {
    uint64_t x = 0;
    for (int i = 0; i < NW; ++i) x |= a.w[i];
    return x != 0;
}
inline int popcount64(uint64_t x) {
#if defined(__GNUC__)
    return __builtin_popcountll(x);
#else
    int n = 0;
    while (x) {
        x &= x - 1;
        ++n;
    }
    return n;
#endif
}
inline int lowest_bit(uint64_t x) {  // x != 0
#if defined(__GNUC__)
    return __builtin_ctzll(x);
#else
    int k = 0;
    while (!(x & 1)) {
        x >>= 1;
        ++k;
    }
    return k;
#endif
}
inline int count(const Bits &a) {
    int n = 0;
    for (int i = 0; i < NW; ++i) n += popcount64(a.w[i]);
    return n;
}
inline Bits zero_bits() {
    Bits r;
    for (int i = 0; i < NW; ++i) r.w[i] = 0;
    return r;
}
template <int K>
inline Bits shl(const Bits &a) {
    constexpr int q = K / 64, s = K % 64;
    Bits r;
    for (int i = NW - 1; i >= 0; --i) {
        uint64_t v = 0;
        if (i - q >= 0) {
            v = a.w[i - q] << s;
            if (s && i - q - 1 >= 0) v |= a.w[i - q - 1] >> (64 - s);
        }
        r.w[i] = v;
    }
    return r;
}
template <int K>
inline Bits shr(const Bits &a) {
    constexpr int q = K / 64, s = K % 64;
    Bits r;
    for (int i = 0; i < NW; ++i) {
        uint64_t v = 0;
        if (i + q < NW) {
            v = a.w[i + q] >> s;
            if (s && i + q + 1 < NW) v |= a.w[i + q + 1] << (64 - s);
        }
        r.w[i] = v;
    }
    return r;
}
inline Bits add(const Bits &a, const Bits &b) {
    Bits r;
    uint64_t carry = 0;
    for (int i = 0; i < NW; ++i) {
        uint64_t s = a.w[i] + carry;
        uint64_t c1 = s < carry ? 1 : 0;
        uint64_t t = s + b.w[i];
        uint64_t c2 = t < s ? 1 : 0;
        r.w[i] = t;
        carry = c1 | c2;
    }
    return r;
}

struct Board {
    int coord_c[NUM_CELLS], coord_r[NUM_CELLS];
    int index[SPAN][SPAN];  // -1: not a cell
    int bit_word[NUM_CELLS];
    uint64_t bit_mask[NUM_CELLS];
    int nbr[NUM_CELLS][6];  // first cell along each direction, NUM_CELLS off the board
    int centre;
    bool border[NUM_CELLS];
    int16_t cell_of_bit[NW * 64];  // -1: not a cell
    Bits mask;

    Board() {
        int n = 0;
        for (int c = 0; c < SPAN; ++c)
            for (int r = 0; r < SPAN; ++r) {
                if (std::abs(c - r) <= SIZE - 1) {
                    coord_c[n] = c;
                    coord_r[n] = r;
                    index[c][r] = n++;
                } else {
                    index[c][r] = -1;
                }
            }
        mask = zero_bits();
        for (int k = 0; k < NW * 64; ++k) cell_of_bit[k] = -1;
        for (int i = 0; i < NUM_CELLS; ++i) {
            int b = coord_c[i] * STRIDE + coord_r[i];
            cell_of_bit[b] = int16_t(i);
            bit_word[i] = b / 64;
            bit_mask[i] = uint64_t(1) << (b % 64);
            mask.w[b / 64] |= bit_mask[i];
            int around = 0;
            for (int d = 0; d < 6; ++d) {
                int cc = coord_c[i] + DIRS[d][0], rr = coord_r[i] + DIRS[d][1];
                bool on = cc >= 0 && rr >= 0 && cc < SPAN && rr < SPAN && index[cc][rr] >= 0;
                nbr[i][d] = on ? index[cc][rr] : NUM_CELLS;
                around += on ? 1 : 0;
            }
            border[i] = around < 6;
        }
        centre = index[SIZE - 1][SIZE - 1];
    }
    bool has(const Bits &b, int i) const { return (b.w[bit_word[i]] & bit_mask[i]) != 0; }
    void set(Bits &b, int i) const { b.w[bit_word[i]] |= bit_mask[i]; }
    void clear(Bits &b, int i) const { b.w[bit_word[i]] &= ~bit_mask[i]; }
    Bits bit(int i) const {
        Bits b = zero_bits();
        set(b, i);
        return b;
    }
    template <class F>
    void cells(const Bits &b, F f) const {  // cell order = bit order
        for (int wi = 0; wi < NW; ++wi) {
            uint64_t x = b.w[wi];
            while (x) {
                int cell = cell_of_bit[wi * 64 + lowest_bit(x)];
                x &= x - 1;
                if (cell >= 0) f(cell);
            }
        }
    }
    std::string name(int i) const {
        return std::string(1, char('A' + coord_c[i])) + std::to_string(coord_r[i] + 1);
    }
    // Cell index of a name such as "F6" (text already stripped), -1 if not a cell.
    int parse(const std::string &s) const {
        if (s.size() < 2) return -1;
        int c = s[0] - 'A';
        if (c < 0 || c >= SPAN || s[1] == '0') return -1;
        long r = 0;
        for (size_t k = 1; k < s.size(); ++k) {
            if (s[k] < '0' || s[k] > '9') return -1;
            r = r * 10 + (s[k] - '0');
            if (r > 1000) return -1;
        }
        r -= 1;
        if (r < 0 || r >= SPAN) return -1;
        return index[c][r];
    }
};

static const Board BOARD;

// --------------------------------------------------------------------- bit planes and sight
struct Planes {
    Bits p[3];  // bit k of every cell's count
};

// Cells where count a > count b (rules.greater).
inline Bits greater(const Planes &a, const Planes &b) {
    const Bits &a0 = a.p[0], &a1 = a.p[1], &a2 = a.p[2];
    const Bits &b0 = b.p[0], &b1 = b.p[1], &b2 = b.p[2];
    return (a2 & ~b2) | (~(a2 ^ b2) & ((a1 & ~b1) | (~(a1 ^ b1) & a0 & ~b0)));
}

inline int count_at(const Planes &pl, int i) {
    return (BOARD.has(pl.p[0], i) ? 1 : 0) + (BOARD.has(pl.p[1], i) ? 2 : 0) + (BOARD.has(pl.p[2], i) ? 4 : 0);
}

// Occluded fill of two generators through one propagator: cells see up (views travel down).
template <int STEP>
inline void fill_down(const Bits &empty, Bits &g1, Bits &g2) {
    Bits pr = empty;
    g1 |= pr & shr<STEP>(g1);
    g2 |= pr & shr<STEP>(g2);
    pr &= shr<STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<2 * STEP>(g1);
    g2 |= pr & shr<2 * STEP>(g2);
    pr &= shr<2 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<4 * STEP>(g1);
    g2 |= pr & shr<4 * STEP>(g2);
    pr &= shr<4 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<8 * STEP>(g1);
    g2 |= pr & shr<8 * STEP>(g2);
    pr &= shr<8 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shr<16 * STEP>(g1);  // runs of empty cells are shorter than 16 on every board here
    g2 |= pr & shr<16 * STEP>(g2);
}
template <int STEP>
inline void fill_up(const Bits &empty, Bits &g1, Bits &g2) {
    Bits pr = empty;
    g1 |= pr & shl<STEP>(g1);
    g2 |= pr & shl<STEP>(g2);
    pr &= shl<STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<2 * STEP>(g1);
    g2 |= pr & shl<2 * STEP>(g2);
    pr &= shl<2 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<4 * STEP>(g1);
    g2 |= pr & shl<4 * STEP>(g2);
    pr &= shl<4 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<8 * STEP>(g1);
    g2 |= pr & shl<8 * STEP>(g2);
    pr &= shl<8 * STEP>(pr);
    if (!any(pr)) return;
    g1 |= pr & shl<16 * STEP>(g1);
    g2 |= pr & shl<16 * STEP>(g2);
}

inline Planes adder(const Bits v[6]) {
    Bits t = v[0] ^ v[1];
    Bits s1 = t ^ v[2];
    Bits k1 = (v[0] & v[1]) | (t & v[2]);
    t = v[3] ^ v[4];
    Bits s2 = t ^ v[5];
    Bits k2 = (v[3] & v[4]) | (t & v[5]);
    Bits k3 = s1 & s2;
    t = k1 ^ k2;
    Planes out;
    out.p[0] = s1 ^ s2;
    out.p[1] = t ^ k3;
    out.p[2] = (k1 & k2) | (k3 & t);
    return out;
}

// How many rays from each cell see a stack of `a` (resp. `b`) first; `empty`: the empty cells.
inline void sight2(const Bits &a, const Bits &b, const Bits &empty, Planes &pa, Planes &pb) {
    const Bits &mask = BOARD.mask;
    Bits va[6], vb[6];
    va[0] = (add(empty, shl<1>(a)) ^ empty) & mask;  // (0, -1): a carry up each row
    vb[0] = (add(empty, shl<1>(b)) ^ empty) & mask;
    Bits ga = a, gb = b;
    fill_down<STRIDE>(empty, ga, gb);
    va[1] = shr<STRIDE>(ga) & mask;
    vb[1] = shr<STRIDE>(gb) & mask;
    ga = a, gb = b;
    fill_down<1>(empty, ga, gb);
    va[2] = shr<1>(ga) & mask;
    vb[2] = shr<1>(gb) & mask;
    ga = a, gb = b;
    fill_down<STRIDE + 1>(empty, ga, gb);
    va[3] = shr<STRIDE + 1>(ga) & mask;
    vb[3] = shr<STRIDE + 1>(gb) & mask;
    ga = a, gb = b;
    fill_up<STRIDE>(empty, ga, gb);
    va[4] = shl<STRIDE>(ga) & mask;
    vb[4] = shl<STRIDE>(gb) & mask;
    ga = a, gb = b;
    fill_up<STRIDE + 1>(empty, ga, gb);
    va[5] = shl<STRIDE + 1>(ga) & mask;
    vb[5] = shl<STRIDE + 1>(gb) & mask;
    pa = adder(va);
    pb = adder(vb);
}

// ----------------------------------------------------------------------------- positions
struct Pos {
    Bits red, white, neutral;
    Planes h;  // heights as 3 bit planes
    int to_move = RED;
    int passes = 0;
    int ply = 0;
    int last_move = -1;
    bool over = false;
    int forfeit = 0;
};

// What a position computes once: sight, territory, comparisons (rules.Position's caches).
struct Info {
    Planes rc, wc;
    Bits tr, tw;
    Bits red_up, white_up, red_more, white_more;
};

inline Bits empty_of(const Pos &p) { return BOARD.mask & ~(p.red | p.white | p.neutral); }

// One CodeCup territory simulation: `first` fills every legal placement, then `second` does;
// `second`'s stacks at the end (rules.territory_bits, one lane pair).
static Bits simulate(Bits first, Bits second, Bits neutral, Planes h, Planes f, Planes s) {
    const Bits &mask = BOARD.mask;
    Bits up, sui;
    while (true) {
        up = greater(f, h);
        sui = greater(s, f);
        Bits fresh = up & ~sui & ~first;
        if (!any(fresh)) break;
        first |= fresh;
        second &= ~fresh;
        neutral &= ~fresh;
        Bits empty = mask & ~(first | second | neutral);
        sight2(first, second, empty, f, s);
    }
    Bits fix = first & up & ~sui;
    if (any(fix)) {
        Bits keep = ~fix;
        for (int k = 0; k < 3; ++k) h.p[k] = (h.p[k] & keep) | (f.p[k] & fix);
    }
    while (true) {
        up = greater(s, h);
        sui = greater(f, s);
        Bits fresh = up & ~sui & ~second;
        if (!any(fresh)) break;
        second |= fresh;
        first &= ~fresh;
        neutral &= ~fresh;
        Bits empty = mask & ~(first | second | neutral);
        sight2(first, second, empty, f, s);
    }
    return second;
}

static void analyse(const Pos &p, Info &info) {
    sight2(p.red, p.white, empty_of(p), info.rc, info.wc);
    info.red_up = greater(info.rc, p.h);
    info.white_up = greater(info.wc, p.h);
    info.red_more = greater(info.rc, info.wc);
    info.white_more = greater(info.wc, info.rc);
    info.tr = simulate(p.white, p.red, p.neutral, p.h, info.wc, info.rc);
    info.tw = simulate(p.red, p.white, p.neutral, p.h, info.rc, info.wc);
}

inline Bits legal_bits(const Info &info, int colour) {
    return colour == RED ? info.red_up & ~info.white_more : info.white_up & ~info.red_more;
}

// Sorted legal placements, or the pass alone (rules.Position.legal_moves, CodeCup).
static void legal_moves(const Pos &p, const Info &info, std::vector<int> &out) {
    out.clear();
    if (p.over) return;
    BOARD.cells(legal_bits(info, p.to_move), [&](int c) { out.push_back(c); });
    if (out.empty()) out.push_back(PASS);
}

// Sight of one cell for a colour, by walking its 6 rays.
static int sight_at(const Pos &p, int cell, int colour) {
    const Bits &mine = colour == RED ? p.red : p.white;
    int n = 0;
    for (int d = 0; d < 6; ++d) {
        int j = BOARD.nbr[cell][d];
        while (j < NUM_CELLS) {
            if (BOARD.has(p.red, j) || BOARD.has(p.white, j) || BOARD.has(p.neutral, j)) {
                if (BOARD.has(mine, j)) ++n;
                break;
            }
            j = BOARD.nbr[j][d];
        }
    }
    return n;
}

// The stacks after a legal move (no end test): the move's height is the mover's sight.
static void place(Pos &p, int move) {
    int mover = p.to_move;
    if (move == PASS) {
        p.passes += 1;
    } else {
        int s = sight_at(p, move, mover);
        if (mover == RED) {
            BOARD.set(p.red, move);
            BOARD.clear(p.white, move);
        } else {
            BOARD.set(p.white, move);
            BOARD.clear(p.red, move);
        }
        BOARD.clear(p.neutral, move);
        for (int k = 0; k < 3; ++k) {
            if (s >> k & 1)
                BOARD.set(p.h.p[k], move);
            else
                BOARD.clear(p.h.p[k], move);
        }
        p.passes = 0;
    }
    p.ply += 1;
    p.last_move = move;
    p.to_move = 3 - mover;
}

// A legal move with the CodeCup end test; `info` becomes the new position's.
static void play(Pos &p, int move, Info &info) {
    place(p, move);
    analyse(p, info);
    if (p.passes >= 2) {
        p.over = true;
    } else if ((info.tr | info.tw) == BOARD.mask) {
        p.over = true;
    }
}

static Pos start_position(int red_cell, int white_cell) {
    Pos p;
    p.red = BOARD.bit(red_cell);
    p.white = BOARD.bit(white_cell);
    p.neutral = BOARD.bit(BOARD.centre);
    p.h.p[0] = p.red | p.white;
    p.h.p[1] = p.neutral;
    p.h.p[2] = zero_bits();
    return p;
}

inline bool same_position(const Pos &a, const Pos &b) {
    return a.to_move == b.to_move && a.red == b.red && a.white == b.white && a.neutral == b.neutral &&
           a.h.p[0] == b.h.p[0] && a.h.p[1] == b.h.p[1] && a.h.p[2] == b.h.p[2] && a.passes == b.passes &&
           a.over == b.over;
}

static void score(const Info &info, int &r_points, int &w_points) {
    int r = count(info.tr), w = count(info.tw);
    if (r > w) {
        r_points = 200 + r;
        w_points = 100 + w;
    } else if (w > r) {
        r_points = 100 + r;
        w_points = 200 + w;
    } else {
        r_points = 100 + r;
        w_points = 100 + w;
    }
}

// +1 / -1 / 0: a finished game's result for the side to move (search.result_value, CodeCup).
static double result_value(const Pos &p, const Info &info) {
    int r = count(info.tr), w = count(info.tw);
    int winner = r > w ? RED : w > r ? WHITE : 0;
    if (winner == 0) return 0.0;
    return winner == p.to_move ? 1.0 : -1.0;
}

// ------------------------------------------------------------------------ errors
struct Error {
    std::string message;
};

// --------------------------------------------------------------------- sha256 and base64
struct Sha256 {
    uint32_t h[8];
    std::vector<unsigned char> buf;
    uint64_t total = 0;
    static uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }
    Sha256() {
        static const uint32_t init[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                         0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
        std::memcpy(h, init, sizeof h);
    }
    void block(const unsigned char *p) {
        static const uint32_t k[64] = {
            0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
            0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
            0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
            0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
            0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
            0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
            0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
            0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};
        uint32_t w[64];
        for (int i = 0; i < 16; ++i)
            w[i] = uint32_t(p[4 * i]) << 24 | uint32_t(p[4 * i + 1]) << 16 | uint32_t(p[4 * i + 2]) << 8 |
                   uint32_t(p[4 * i + 3]);
        for (int i = 16; i < 64; ++i) {
            uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
            uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
        for (int i = 0; i < 64; ++i) {
            uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
            uint32_t ch = (e & f) ^ (~e & g);
            uint32_t t1 = hh + S1 + ch + k[i] + w[i];
            uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
            uint32_t mj = (a & b) ^ (a & c) ^ (b & c);
            uint32_t t2 = S0 + mj;
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = b;
            b = a;
            a = t1 + t2;
        }
        h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    }
    std::string digest(const unsigned char *data, size_t n) {
        std::vector<unsigned char> m(data, data + n);
        uint64_t bits = uint64_t(n) * 8;
        m.push_back(0x80);
        while (m.size() % 64 != 56) m.push_back(0);
        for (int i = 7; i >= 0; --i) m.push_back((unsigned char)(bits >> (8 * i)));
        for (size_t i = 0; i < m.size(); i += 64) block(&m[i]);
        std::string out;
        for (int i = 0; i < 8; ++i)
            for (int j = 3; j >= 0; --j) out.push_back(char((h[i] >> (8 * j)) & 0xff));
        return out;
    }
};

static std::vector<unsigned char> base64_decode(const std::string &text) {
    std::vector<unsigned char> out;
    uint32_t acc = 0;
    int bits = 0;
    for (char ch : text) {
        int v;
        if (ch >= 'A' && ch <= 'Z')
            v = ch - 'A';
        else if (ch >= 'a' && ch <= 'z')
            v = ch - 'a' + 26;
        else if (ch >= '0' && ch <= '9')
            v = ch - '0' + 52;
        else if (ch == '+')
            v = 62;
        else if (ch == '/')
            v = 63;
        else
            continue;  // padding, newlines
        acc = (acc << 6) | uint32_t(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out.push_back((unsigned char)((acc >> bits) & 0xff));
        }
    }
    return out;
}

// ------------------------------------------------------------------ a small JSON reader
struct Json {
    enum Kind { NUL, BOOL, NUM, STR, ARR, OBJ } kind = NUL;
    double num = 0;
    bool flag = false;
    std::string str;
    std::vector<Json> items;
    std::map<std::string, Json> fields;
    const Json *get(const std::string &k) const {
        auto it = fields.find(k);
        return it == fields.end() ? nullptr : &it->second;
    }
};

struct JsonReader {
    const std::string &s;
    size_t i = 0;
    explicit JsonReader(const std::string &text) : s(text) {}
    [[noreturn]] void fail() { throw Error{"not valid JSON"}; }
    void ws() {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')) ++i;
    }
    Json value(int depth = 0) {
        if (depth > 64) fail();
        ws();
        if (i >= s.size()) fail();
        Json j;
        char ch = s[i];
        if (ch == '{') {
            j.kind = Json::OBJ;
            ++i;
            ws();
            if (i < s.size() && s[i] == '}') {
                ++i;
                return j;
            }
            while (true) {
                ws();
                if (i >= s.size() || s[i] != '"') fail();
                std::string key = string();
                ws();
                if (i >= s.size() || s[i] != ':') fail();
                ++i;
                j.fields[key] = value(depth + 1);
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < s.size() && s[i] == '}') {
                    ++i;
                    return j;
                }
                fail();
            }
        }
        if (ch == '[') {
            j.kind = Json::ARR;
            ++i;
            ws();
            if (i < s.size() && s[i] == ']') {
                ++i;
                return j;
            }
            while (true) {
                j.items.push_back(value(depth + 1));
                ws();
                if (i < s.size() && s[i] == ',') {
                    ++i;
                    continue;
                }
                if (i < s.size() && s[i] == ']') {
                    ++i;
                    return j;
                }
                fail();
            }
        }
        if (ch == '"') {
            j.kind = Json::STR;
            j.str = string();
            return j;
        }
        if (s.compare(i, 4, "true") == 0) {
            i += 4;
            j.kind = Json::BOOL;
            j.flag = true;
            return j;
        }
        if (s.compare(i, 5, "false") == 0) {
            i += 5;
            j.kind = Json::BOOL;
            return j;
        }
        if (s.compare(i, 4, "null") == 0) {
            i += 4;
            return j;
        }
        size_t start = i;
        while (i < s.size() && (std::strchr("+-0123456789.eE", s[i]) != nullptr)) ++i;
        if (start == i) fail();
        j.kind = Json::NUM;
        j.num = std::strtod(s.substr(start, i - start).c_str(), nullptr);
        return j;
    }
    std::string string() {
        std::string out;
        ++i;  // the opening quote
        while (i < s.size() && s[i] != '"') {
            if (s[i] == '\\') {
                ++i;
                if (i >= s.size()) fail();
                char e = s[i];
                if (e == 'u') {
                    if (i + 4 >= s.size()) fail();
                    unsigned code = unsigned(std::strtoul(s.substr(i + 1, 4).c_str(), nullptr, 16));
                    out.push_back(code < 128 ? char(code) : '?');  // names in our headers are ASCII
                    i += 4;
                } else {
                    out.push_back(e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                                  : e == 'f'                          ? '\f'
                                                                      : e);
                }
                ++i;
            } else {
                out.push_back(s[i++]);
            }
        }
        if (i >= s.size()) fail();
        ++i;
        return out;
    }
};

// ------------------------------------------------------------------------ the weights file
static const char MAGIC[8] = {'T', 'W', 'N', 'E', 'T', '\r', '\n', '\x1a'};

struct Tensor {
    std::vector<int> shape;
    std::vector<double> values;  // row-major
};

struct Weights {
    int board_size = 0;
    Json header;
    std::map<std::string, Tensor> tensors;
    const Tensor &tensor(const std::string &name) const {
        auto it = tensors.find(name);
        if (it == tensors.end()) throw Error{"the weights file has no tensor '" + name + "'"};
        return it->second;
    }
};

inline uint32_t le32(const unsigned char *p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
inline double f32_at(const unsigned char *p) {
    uint32_t u = le32(p);
    float f;
    std::memcpy(&f, &u, 4);
    return double(f);
}
inline double f16_at(const unsigned char *p) {
    unsigned u = unsigned(p[0]) | unsigned(p[1]) << 8;
    int sign = (u >> 15) & 1, e = (u >> 10) & 31, m = u & 1023;
    double v;
    if (e == 0)
        v = std::ldexp(double(m), -24);
    else if (e == 31)
        v = m ? NAN : INFINITY;
    else
        v = std::ldexp(double(m + 1024), e - 25);
    return sign ? -v : v;
}

static Weights parse_weights(const std::vector<unsigned char> &data, const std::string &name) {
    const size_t prefix = 20, digest_size = 32;
    if (data.size() < prefix + digest_size)
        throw Error{name + ": too short to be a tw_rl weights file (" + std::to_string(data.size()) + " bytes)"};
    if (std::memcmp(data.data(), MAGIC, 8) != 0) throw Error{name + ": not a tw_rl weights file (bad magic)"};
    int version = data[8] | data[9] << 8;
    int size = data[10] | data[11] << 8;
    uint64_t header_len = le32(&data[12]), data_len = le32(&data[16]);
    if (version != FORMAT_VERSION)
        throw Error{name + ": weights format version " + std::to_string(version) + ", this bot reads version " +
                    std::to_string(FORMAT_VERSION) + " only"};
    uint64_t end = prefix + header_len + data_len;
    if (data.size() != end + digest_size)
        throw Error{name + ": " + std::to_string(data.size()) + " bytes where its lengths say " +
                    std::to_string(end + digest_size) + " (truncated or padded)"};
    Sha256 sha;
    if (sha.digest(data.data(), size_t(end)) != std::string(data.begin() + long(end), data.end()))
        throw Error{name + ": checksum mismatch (the file is damaged)"};
    Weights w;
    w.board_size = size;
    std::string text(data.begin() + prefix, data.begin() + long(prefix + header_len));
    try {
        JsonReader reader(text);
        w.header = reader.value();
    } catch (const Error &) {
        throw Error{name + ": unreadable header (not valid JSON)"};
    }
    const Json *specs = w.header.kind == Json::OBJ ? w.header.get("tensors") : nullptr;
    if (specs == nullptr || specs->kind != Json::ARR) throw Error{name + ": unreadable header (no tensor list)"};
    struct Spec {
        std::string name, dtype;
        std::vector<int> shape;
    };
    std::vector<Spec> list;
    uint64_t need = 0;
    for (const Json &t : specs->items) {
        const Json *tn = t.get("name"), *ts = t.get("shape"), *td = t.get("dtype");
        if (!tn || !ts || !td || tn->kind != Json::STR || ts->kind != Json::ARR || td->kind != Json::STR)
            throw Error{name + ": unreadable header (a tensor lacks name, shape or dtype)"};
        Spec sp{tn->str, td->str, {}};
        for (const Json &d : ts->items) sp.shape.push_back(d.kind == Json::NUM ? int(d.num) : 0);
        bool ok_dtype = sp.dtype == "f32" || sp.dtype == "f16" || sp.dtype == "i8";
        int low = sp.shape.empty() ? 0 : *std::min_element(sp.shape.begin(), sp.shape.end());
        if (!ok_dtype || sp.shape.empty() || sp.shape.size() > 2 || low < 1)
            throw Error{name + ": tensor '" + sp.name + "' has an unsupported dtype or shape"};
        uint64_t n = 1;
        for (int d : sp.shape) n *= uint64_t(d);
        need += sp.dtype == "f32" ? 4 * n : sp.dtype == "f16" ? 2 * n : 4 * uint64_t(sp.shape[0]) + n;
        list.push_back(sp);
    }
    if (need != data_len)
        throw Error{name + ": the header describes " + std::to_string(need) + " data bytes, the file holds " +
                    std::to_string(data_len)};
    if (size != SIZE)
        throw Error{name + ": the network was made for the size-" + std::to_string(size) +
                    " board, not size " + std::to_string(SIZE)};
    size_t off = prefix + header_len;
    for (const Spec &sp : list) {
        Tensor t;
        t.shape = sp.shape;
        size_t n = 1;
        for (int d : sp.shape) n *= size_t(d);
        t.values.resize(n);
        if (sp.dtype == "f32") {
            for (size_t k = 0; k < n; ++k) t.values[k] = f32_at(&data[off + 4 * k]);
            off += 4 * n;
        } else if (sp.dtype == "f16") {
            for (size_t k = 0; k < n; ++k) t.values[k] = f16_at(&data[off + 2 * k]);
            off += 2 * n;
        } else {
            size_t rows = size_t(sp.shape[0]), cols = n / rows;
            for (size_t r = 0; r < rows; ++r) {
                double scale = f32_at(&data[off + 4 * r]);
                for (size_t c = 0; c < cols; ++c) {
                    int q = int(int8_t(data[off + 4 * rows + r * cols + c]));
                    t.values[r * cols + c] = double(q) * scale;
                }
            }
            off += 4 * rows + n;
        }
        w.tensors[sp.name] = t;
    }
    return w;
}

static std::vector<unsigned char> read_file(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error{"weights file not found: " + path};
    std::vector<unsigned char> data;
    unsigned char buf[65536];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) data.insert(data.end(), buf, buf + got);
    bool bad = std::ferror(f) != 0;
    std::fclose(f);
    if (bad) throw Error{"cannot read weights file " + path};
    return data;
}

// ------------------------------------------------------------------------ evaluators
// The seam (evaluation.py): moves in the evaluator's order with their priors, and a value for
// the side to move.  `root`: the moves must be the legal moves in cell order (the search then
// renormalises, as search.Node.expand does with `legal`).
struct Evaluation {
    std::vector<int> moves;
    std::vector<double> priors;
    double value = 0.0;
};

class Evaluator {
  public:
    virtual ~Evaluator() = default;
    virtual void evaluate(const Pos &p, const Info &info, bool root, Evaluation &out) = 0;
};

// ------------------------------------------------------------------------ the student network
constexpr int MAX_H = 6;
constexpr int OWNER_ROWS = 4 * (MAX_H + 1);  // 28
constexpr int SIGHT_ROWS = 49;
constexpr int STATUS_ROWS = 16;
constexpr int ROWS = OWNER_ROWS + SIGHT_ROWS + STATUS_ROWS;  // 93
constexpr int NUM_CODES = OWNER_ROWS * SIGHT_ROWS * STATUS_ROWS;

class Network : public Evaluator {
  public:
    int width = 0, hidden = 0, directions = 1;
    std::vector<double> self_rows, msg_rows;  // ROWS x W (msg: D * ROWS x W, already / 6)
    std::vector<int64_t> const_q;             // per cell: round((bias + missing edges) * 2**20)
    std::vector<double> policy_w_fixed, hidden_w, hidden_g, hidden_b, value_w, pass_w;
    double policy_b = 0, value_b = 0, pass_b = 0;
    std::vector<int64_t> hidden_q;  // H x W: round(G * 2**24)
    int col_bias_exp = 0;
    // code -> slot; slots hold the packed self vector and D messages
    std::vector<int32_t> slot_of;
    std::vector<int64_t> slots;
    // int32 copies when no sum of 8 rows can leave int32 (checked at load): twice the SIMD lanes
    bool narrow = false;
    std::vector<int32_t> slots32, const_q32;
    std::vector<double> h;  // per cell x W: the hidden values in fixed point (exact integers)
    std::vector<int64_t> sum_scratch, gq_scratch;
    std::vector<double> g_scratch, z_scratch;
    uint64_t evaluations = 0;

    explicit Network(const Weights &w) {
        const Json *arch = w.header.get("arch");
        if (!arch || arch->kind != Json::STR || arch->str != "student-1")
            throw Error{"the weights file holds a '" + (arch && arch->kind == Json::STR ? arch->str : "?") +
                        "' network, not 'student-1'"};
        const Json *jw = w.header.get("width"), *jh = w.header.get("hidden"), *jm = w.header.get("mixing");
        if (!jw || !jh || !jm || jw->kind != Json::NUM || jh->kind != Json::NUM || jm->kind != Json::STR)
            throw Error{"the weights file's header lacks width, hidden or mixing"};
        width = int(jw->num);
        hidden = int(jh->num);
        if (jm->str != "mean" && jm->str != "directional")
            throw Error{"the weights file has an unknown mixing '" + jm->str + "'"};
        directions = jm->str == "mean" ? 1 : 6;
        if (width < 1 || hidden < 1 || width > 4096 || hidden > 4096)
            throw Error{"the weights file's width or hidden size is out of range"};
        const int W = width, H = hidden, D = directions;
        auto expect = [&](const char *name, std::vector<int> shape) -> const Tensor & {
            const Tensor &t = w.tensor(name);
            if (t.shape != shape) throw Error{std::string("tensor '") + name + "' has the wrong shape"};
            return t;
        };
        const Tensor &st = expect("self_table", {ROWS, W});
        const Tensor &sb = expect("self_bias", {W});
        const Tensor &mt = expect("msg_table", {D * ROWS, W});
        const Tensor &ed = expect("edge", {D, W});
        const Tensor &pw = expect("policy_w", {W});
        const Tensor &pb = expect("policy_b", {1});
        const Tensor &hw = expect("hidden_w", {H, W});
        const Tensor &hg = expect("hidden_g", {H, 2});
        const Tensor &hb = expect("hidden_b", {H});
        const Tensor &vw = expect("value_w", {H});
        const Tensor &vb = expect("value_b", {1});
        const Tensor &qw = expect("pass_w", {H});
        const Tensor &qb = expect("pass_b", {1});
        const double sixth = 1.0 / 6.0;
        const double scale = double(1 << FIXED_BITS);
        self_rows = st.values;
        msg_rows = mt.values;
        for (double &x : msg_rows) x = x * sixth;
        std::vector<double> edge = ed.values;
        for (double &x : edge) x = x * sixth;
        const_q.resize(size_t(NUM_CELLS) * W);
        for (int i = 0; i < NUM_CELLS; ++i) {
            std::vector<double> k = sb.values;
            for (int d = 0; d < 6; ++d) {
                if (BOARD.nbr[i][d] == NUM_CELLS) {
                    const double *e = &edge[size_t(D == 6 ? d : 0) * W];
                    for (int j = 0; j < W; ++j) k[j] = k[j] + e[j];
                }
            }
            for (int j = 0; j < W; ++j) const_q[size_t(i) * W + j] = int64_t(std::nearbyint(k[j] * scale));
        }
        const double inv_scale = 1.0 / scale;
        policy_w_fixed = pw.values;
        for (double &x : policy_w_fixed) x = x * inv_scale;
        policy_b = pb.values[0];
        hidden_w = hw.values;
        hidden_g = hg.values;
        hidden_b = hb.values;
        value_w = vw.values;
        value_b = vb.values[0];
        pass_w = qw.values;
        pass_b = qb.values[0];
        double top = 0.0;
        for (double x : hidden_w) top = std::max(top, std::fabs(x));
        int e = 0;
        std::frexp(top, &e);
        col_bias_exp = HIDDEN_BITS + std::max(1, e + 1);
        hidden_q.resize(size_t(H) * W);
        for (size_t k = 0; k < hidden_q.size(); ++k)
            hidden_q[k] = int64_t(std::nearbyint(hidden_w[k] * double(1 << HIDDEN_BITS)));
        slot_of.assign(NUM_CODES, -1);
        h.resize(size_t(NUM_CELLS) * W);
        // |self| + |const| + 6 |message| of any cell, any lane, in fixed point (+1 per rounding)
        double bound = 0.0;
        for (int j = 0; j < W; ++j) {
            double sm[3] = {0, 0, 0}, mm[3] = {0, 0, 0}, km = 0;
            const int lo[3] = {0, OWNER_ROWS, OWNER_ROWS + SIGHT_ROWS}, hi[3] = {OWNER_ROWS, OWNER_ROWS + SIGHT_ROWS, ROWS};
            for (int part = 0; part < 3; ++part)
                for (int row = lo[part]; row < hi[part]; ++row) {
                    sm[part] = std::max(sm[part], std::fabs(self_rows[size_t(row) * W + j]));
                    for (int d = 0; d < D; ++d)
                        mm[part] = std::max(mm[part], std::fabs(msg_rows[(size_t(d) * ROWS + row) * W + j]));
                }
            for (int i = 0; i < NUM_CELLS; ++i) km = std::max(km, std::fabs(double(const_q[size_t(i) * W + j])));
            double b = km + (sm[0] + sm[1] + sm[2]) * scale + 1 + 6 * ((mm[0] + mm[1] + mm[2]) * scale + 1);
            bound = std::max(bound, b);
        }
        narrow = bound * NUM_CELLS < 2.0e9;  // the sum over the cells too
        if (narrow) const_q32.assign(const_q.begin(), const_q.end());
    }

    // The packed rows of a cell code: self vector, then D messages (network._rows, _pack).
    const int64_t *entry(int a, int b, int c) {
        int code = (a * SIGHT_ROWS + b) * STATUS_ROWS + c;
        int32_t s = slot_of[size_t(code)];
        const int W = width, D = directions;
        const size_t per = size_t(W) * (1 + D);
        if (s < 0) {
            s = int32_t(slots.size() / per);
            slot_of[size_t(code)] = s;
            slots.resize(slots.size() + per);
            int64_t *out = &slots[size_t(s) * per];
            const double scale = double(1 << FIXED_BITS);
            const double *ta = &self_rows[size_t(a) * W], *tb = &self_rows[size_t(OWNER_ROWS + b) * W],
                         *tc = &self_rows[size_t(OWNER_ROWS + SIGHT_ROWS + c) * W];
            for (int j = 0; j < W; ++j) out[j] = int64_t(std::nearbyint((ta[j] + tb[j] + tc[j]) * scale));
            for (int d = 0; d < D; ++d) {
                size_t o = size_t(d) * ROWS;
                const double *ma = &msg_rows[(o + a) * W], *mb = &msg_rows[(o + OWNER_ROWS + b) * W],
                             *mc = &msg_rows[(o + OWNER_ROWS + SIGHT_ROWS + c) * W];
                for (int j = 0; j < W; ++j)
                    out[W * (1 + d) + j] = int64_t(std::nearbyint((ma[j] + mb[j] + mc[j]) * scale));
            }
            if (narrow) slots32.insert(slots32.end(), out, out + per);
        }
        return &slots[size_t(s) * per];
    }

    // h_i = relu(self + const + the neighbours' messages) for every cell, and their sum.
    // WC: the width as a compile-time constant (0: read it from the file), so that the compiler
    // knows the trip counts and vectorises the lanes at -O2.
    template <class T, int WC>
    void mix(const std::vector<T> &table, const std::vector<T> &konst, const int (&slot)[NUM_CELLS],
             int64_t *sum_out) {
        const int W = WC ? WC : width, D = directions;
        const size_t per = size_t(W) * (1 + D);
        T acc[WC ? WC : 4096], sum[WC ? WC : 4096];
        for (int j = 0; j < W; ++j) sum[j] = 0;
        for (int i = 0; i < NUM_CELLS; ++i) {
            const T *s = &table[size_t(slot[i]) * per], *k = &konst[size_t(i) * W];
            for (int j = 0; j < W; ++j) acc[j] = T(s[j] + k[j]);
            for (int d = 0; d < 6; ++d) {
                int nb = BOARD.nbr[i][d];
                if (nb == NUM_CELLS) continue;  // the edge constant is in konst
                const T *m = &table[size_t(slot[nb]) * per + size_t(W) * (1 + (D == 6 ? d : 0))];
                for (int j = 0; j < W; ++j) acc[j] = T(acc[j] + m[j]);
            }
            double *hi = &h[size_t(i) * W];
            for (int j = 0; j < W; ++j) {
                T x = acc[j] < 1 ? T(0) : acc[j];
                hi[j] = double(x);
                sum[j] = T(sum[j] + x);
            }
        }
        for (int j = 0; j < W; ++j) sum_out[j] = int64_t(sum[j]);
    }

    // (logits of `cells`, value) for one position (network.Network.run).
    double run(const Pos &p, const Info &info, const std::vector<int> &cells, std::vector<double> &logits) {
        const int W = width, H = hidden;
        const int me = p.to_move;
        const Bits &mine = me == RED ? p.red : p.white, &theirs = me == RED ? p.white : p.red;
        const Planes &a_s = me == RED ? info.rc : info.wc, &b_s = me == RED ? info.wc : info.rc;
        const Bits &tm = me == RED ? info.tr : info.tw, &tt = me == RED ? info.tw : info.tr;
        Bits legal_me = legal_bits(info, me), legal_them = legal_bits(info, 3 - me);
        int codes[NUM_CELLS][3];
        for (int i = 0; i < NUM_CELLS; ++i) {
            int owner = BOARD.has(mine, i) ? 1 : BOARD.has(theirs, i) ? 2 : BOARD.has(p.neutral, i) ? 3 : 0;
            int height = count_at(p.h, i);
            if (height > MAX_H) height = MAX_H;
            int a = owner * 7 + height;
            int b = count_at(a_s, i) * 7 + count_at(b_s, i);
            int c = (BOARD.has(legal_me, i) ? 8 : 0) + (BOARD.has(legal_them, i) ? 4 : 0) +
                    (BOARD.has(tm, i) ? 1 : 0) + (BOARD.has(tt, i) ? 2 : 0);
            codes[i][0] = a;
            codes[i][1] = b;
            codes[i][2] = c;
            entry(a, b, c);  // made now: a new entry may move the slots
        }
        int slot[NUM_CELLS];
        for (int i = 0; i < NUM_CELLS; ++i)
            slot[i] = slot_of[size_t((codes[i][0] * SIGHT_ROWS + codes[i][1]) * STATUS_ROWS + codes[i][2])];
        std::vector<int64_t> &sum = sum_scratch;
        sum.assign(size_t(W), 0);
        if (narrow && W == 32)
            mix<int32_t, 32>(slots32, const_q32, slot, sum.data());
        else if (narrow && W == 16)
            mix<int32_t, 16>(slots32, const_q32, slot, sum.data());
        else if (narrow && W == 64)
            mix<int32_t, 64>(slots32, const_q32, slot, sum.data());
        else if (narrow)
            mix<int32_t, 0>(slots32, const_q32, slot, sum.data());
        else
            mix<int64_t, 0>(slots, const_q, slot, sum.data());
        const double inv = (1.0 / double(NUM_CELLS)) / double(1 << FIXED_BITS);
        std::vector<double> &g = g_scratch, &z = z_scratch;
        g.resize(size_t(W));
        z.resize(size_t(H));
        for (int j = 0; j < W; ++j) g[size_t(j)] = double(sum[size_t(j)]) * inv;
        double r = me == RED ? 1.0 : 0.0, ps = p.passes ? 1.0 : 0.0;
        hidden_layer(g, r, ps, z);
        double v = 0.0;
        for (int k = 0; k < H; ++k) v += value_w[size_t(k)] * z[size_t(k)];
        double value = std::tanh(v + value_b);
        logits.resize(cells.size());
        const double *u = policy_w_fixed.data();
        size_t m = 0;
        // four moves at a time: four independent sums, each in the order of the Python code
        for (; m + 4 <= cells.size() && cells[m + 3] != PASS; m += 4) {
            const double *h0 = &h[size_t(cells[m]) * W], *h1 = &h[size_t(cells[m + 1]) * W],
                         *h2 = &h[size_t(cells[m + 2]) * W], *h3 = &h[size_t(cells[m + 3]) * W];
            double x0 = 0.0, x1 = 0.0, x2 = 0.0, x3 = 0.0;
            for (int j = 0; j < W; ++j) {
                x0 += h0[j] * u[j];
                x1 += h1[j] * u[j];
                x2 += h2[j] * u[j];
                x3 += h3[j] * u[j];
            }
            logits[m] = x0 + policy_b;
            logits[m + 1] = x1 + policy_b;
            logits[m + 2] = x2 + policy_b;
            logits[m + 3] = x3 + policy_b;
        }
        for (; m < cells.size(); ++m) {
            int y = cells[m];
            double x = 0.0;
            if (y == PASS) {
                for (int k = 0; k < H; ++k) x += pass_w[size_t(k)] * z[size_t(k)];
                logits[m] = x + pass_b;
            } else {
                const double *hy = &h[size_t(y) * W];
                for (int j = 0; j < W; ++j) x += hy[j] * u[j];
                logits[m] = x + policy_b;
            }
        }
        return value;
    }

    void hidden_layer(const std::vector<double> &g, double r, double ps, std::vector<double> &z) {
        const int W = width, H = hidden;
        const double scale = double(1 << HIDDEN_BITS);
        std::vector<int64_t> &gq = gq_scratch;
        gq.resize(size_t(W));
        int64_t total = 0;
        bool negative = false;
        bool fits = true;
        for (int j = 0; j < W; ++j) {
            double x = std::nearbyint(g[size_t(j)] * scale);
            if (!(std::fabs(x) < 9.0e18)) fits = false;
            gq[size_t(j)] = fits ? int64_t(x) : 0;
            if (gq[size_t(j)] < 0) negative = true;
            total += gq[size_t(j)];
        }
        // network._hidden_layer: fixed point when total * 2 * col_bias < 2**63
        bool fixed = fits && !negative && col_bias_exp < 62 && total < (int64_t(1) << (62 - col_bias_exp));
        if (fixed) {
            const double inv = 1.0 / (scale * scale);
            for (int k = 0; k < H; ++k) {
                int64_t acc = 0;
                const int64_t *row = &hidden_q[size_t(k) * W];
                for (int j = 0; j < W; ++j) acc += gq[size_t(j)] * row[j];
                double x = double(acc) * inv + hidden_g[size_t(2 * k)] * r + hidden_g[size_t(2 * k + 1)] * ps +
                           hidden_b[size_t(k)];
                z[size_t(k)] = x > 0.0 ? x : 0.0;
            }
            return;
        }
        for (int k = 0; k < H; ++k) {
            double x = 0.0;
            for (int j = 0; j < W; ++j) x += hidden_w[size_t(k) * W + j] * g[size_t(j)];
            x = x + hidden_g[size_t(2 * k)] * r + hidden_g[size_t(2 * k + 1)] * ps + hidden_b[size_t(k)];
            z[size_t(k)] = x > 0.0 ? x : 0.0;
        }
    }

    // NetworkEvaluator.evaluate: softmax of the logits over the legal moves.
    void evaluate(const Pos &p, const Info &info, bool, Evaluation &out) override {
        out.moves.clear();
        BOARD.cells(legal_bits(info, p.to_move), [&](int c) { out.moves.push_back(c); });
        if (out.moves.empty()) out.moves.push_back(PASS);
        std::vector<double> &logits = out.priors;
        out.value = run(p, info, out.moves, logits);
        ++evaluations;
        if (out.moves.size() == 1) {
            logits[0] = 1.0;
            return;
        }
        double top = *std::max_element(logits.begin(), logits.end());
        double total = 0.0;
        for (double &x : logits) {
            x = std::exp(x - top);
            total += x;
        }
        double inv = 1.0 / total;
        for (double &x : logits) x = x * inv;
    }
};

// ------------------------------------------------------------------ the territory evaluator
// evaluation.TerritoryEvaluator with its defaults: value from the territory and control
// margins, priors by move type, in groups of equal weight.
class TerritoryEvaluator : public Evaluator {
  public:
    void evaluate(const Pos &p, const Info &info, bool root, Evaluation &out) override {
        const bool red = p.to_move == RED;
        const Bits &mine = red ? p.red : p.white, &theirs = red ? p.white : p.red;
        Bits neutral = p.neutral;
        const Planes &b = red ? info.wc : info.rc;
        const Bits &a_more = red ? info.red_more : info.white_more, &b_more = red ? info.white_more : info.red_more;
        const Bits &a_up = red ? info.red_up : info.white_up, &b_up = red ? info.white_up : info.red_up;
        Bits t_mine = red ? info.tr : info.tw, t_theirs = red ? info.tw : info.tr;
        int t_margin = count(t_mine) - count(t_theirs);
        Bits empty = BOARD.mask & ~(mine | theirs | neutral);
        int c_margin = count(empty & a_more) - count(empty & b_more) + count(mine & ~(b_up & ~a_more)) -
                       count(theirs & ~(a_up & ~b_more)) + count(neutral & a_more & a_up) -
                       count(neutral & b_more & b_up);
        out.value = std::tanh(TERRITORY_K * (1.0 * t_margin + 1.0 * c_margin) / ((1.0 + 1.0) * NUM_CELLS));
        out.moves.clear();
        out.priors.clear();
        Bits legal = a_up & ~b_more;
        if (!any(legal)) {
            out.moves.push_back(PASS);
            out.priors.push_back(1.0);
            return;
        }
        struct Group {
            Bits cells;
            double w;
        };
        std::vector<Group> groups;
        Bits lempty = legal & ~(mine | theirs | neutral);
        Bits b_sees = b.p[0] | b.p[1] | b.p[2];
        Bits less = lempty & a_more & b_sees;
        Bits unseen = lempty & a_more & ~b_sees;
        Bits capture = legal & theirs;
        Bits lneutral = neutral & legal;
        Bits safe = legal & mine & ~b_up;
        Bits contested = legal & ~(less | unseen | capture | lneutral | safe);
        t_theirs = t_theirs & ~t_mine;
        Bits elsewhere = ~(t_mine | t_theirs);
        const Group base[6] = {{capture, 1.5}, {contested, 1.0}, {lneutral, 0.7},
                               {less, 0.5},    {unseen, 0.15},   {safe, 0.05}};
        for (const Group &g : base) {
            if (!any(g.cells)) continue;
            const Group parts[3] = {{g.cells & elsewhere, 1.0}, {g.cells & t_mine, 0.1}, {g.cells & t_theirs, 0.3}};
            for (const Group &part : parts)
                if (any(part.cells)) groups.push_back({part.cells, g.w * part.w});
        }
        double total = 0.0;
        for (const Group &g : groups) total += count(g.cells) * g.w;
        double inv = 1.0 / total;
        std::stable_sort(groups.begin(), groups.end(), [](const Group &x, const Group &y) { return x.w > y.w; });
        if (root) {  // the legal moves in cell order (a dict of the priors, read in legal order)
            std::vector<double> prior(NUM_CELLS, 0.0);
            for (const Group &g : groups) {
                double v = g.w * inv;
                BOARD.cells(g.cells, [&](int c) { prior[size_t(c)] = v; });
            }
            BOARD.cells(legal, [&](int c) {
                out.moves.push_back(c);
                out.priors.push_back(prior[size_t(c)]);
            });
            return;
        }
        for (const Group &g : groups) {
            double v = g.w * inv;
            BOARD.cells(g.cells, [&](int c) {
                out.moves.push_back(c);
                out.priors.push_back(v);
            });
        }
    }
};

// ------------------------------------------------------------------------------ the search
// search.MCTS over a node pool.  A node keeps no position: a simulation replays the moves of
// its path from the root's position (`place`, a few dozen operations a move), and only a new
// leaf gets its sight and territory (`play`).  A node's children are a prefix of its moves
// (highest prior first), linked first to last; a child's visits are its edge's count and
// its wsum the negated sum of the edge's values (the Python search keeps both, equal).
//
// Ties are broken as the Python search breaks them, so the two pick the same moves: a node's
// moves are stable-sorted by prior, highest first (ties keep the evaluator's order: cell order
// for the network and at the root, prior-group order below the root for the territory
// evaluator); selection keeps the first maximum in that order, and the unvisited move wins
// only when strictly above it; the answer is the most visited move, then the higher mean value,
// then the higher prior, then the first in that order.  The floating-point expressions are the
// Python ones in the same order (and never fused: see the pragma at the top).
struct Node {
    double wsum;
    double value;
    int32_t visits;
    int32_t first_child, last_child, next_sibling;
    uint32_t edges;  // offset of its moves and priors
    uint8_t nmoves, nchildren, move, terminal;
};

struct Stat {
    int move;
    int visits;
};

class MCTS {
  public:
    Evaluator *evaluator;
    double c_puct, fpu_reduction;
    bool reuse = true;
    // the pool: capped, never grown past the caps (see `full`)
    size_t node_cap, edge_cap;
    std::vector<Node> nodes;
    std::vector<double> priors;
    std::vector<uint8_t> moves;
    int32_t root = -1;
    Pos root_pos;
    int last_sims = 0;
    int last_reused = 0;
    bool stopped_full = false;
    std::vector<Stat> last_stats;  // root moves by visits, most first (stable)
    Evaluation scratch;
    std::vector<int> legal_scratch;

    MCTS(Evaluator *e, double c, double fpu, size_t node_cap_, size_t edge_cap_)
        : evaluator(e), c_puct(c), fpu_reduction(fpu), node_cap(node_cap_), edge_cap(edge_cap_) {
        // reserved, not touched: pages become resident only as the tree grows, and no
        // reallocation ever moves a node
        nodes.reserve(node_cap);
        priors.reserve(edge_cap);
        moves.reserve(edge_cap);
    }

    void reset() {
        root = -1;
        nodes.clear();
        priors.clear();
        moves.clear();
    }
    bool full() const { return nodes.size() + 1 >= node_cap || priors.size() + NUM_CELLS + 1 >= edge_cap; }

    // A new node for position p (its Info `info`), evaluated; `root`: priors over the legal moves.
    int32_t make_node(const Pos &p, const Info &info, bool as_root, double &value_out) {
        Node n;
        n.wsum = 0;
        n.value = 0;
        n.visits = 0;
        n.first_child = n.last_child = n.next_sibling = -1;
        n.edges = uint32_t(priors.size());
        n.nmoves = 0;
        n.nchildren = 0;
        n.move = 0;
        n.terminal = p.over ? 1 : 0;
        if (p.over) {
            n.value = result_value(p, info);
        } else {
            Evaluation &ev = scratch;
            evaluator->evaluate(p, info, as_root, ev);
            size_t m = ev.moves.size();
            if (as_root) {  // trust the rules engine: renormalise over the legal moves
                double total = 0.0;
                for (size_t k = 0; k < m; ++k) total += std::max(0.0, ev.priors[k]);
                for (size_t k = 0; k < m; ++k)
                    ev.priors[k] = total > 0.0 ? std::max(0.0, ev.priors[k]) / total : 1.0 / double(m);
            }
            // highest prior first, ties in the evaluator's order (a stable insertion sort)
            int order[NUM_CELLS + 1];
            for (size_t k = 0; k < m; ++k) {
                size_t j = k;
                while (j > 0 && ev.priors[size_t(order[j - 1])] < ev.priors[k]) {
                    order[j] = order[j - 1];
                    --j;
                }
                order[j] = int(k);
            }
            for (size_t k = 0; k < m; ++k) {
                priors.push_back(ev.priors[size_t(order[k])]);
                moves.push_back(uint8_t(ev.moves[size_t(order[k])]));
            }
            n.nmoves = uint8_t(m);
            n.value = std::max(-1.0, std::min(1.0, ev.value));
        }
        n.visits = 1;
        n.wsum = n.value;
        nodes.push_back(n);
        value_out = n.value;
        return int32_t(nodes.size() - 1);
    }

    // The next child of node (its position p, changed to the child's), evaluated.
    int32_t make_child(int32_t ni, Pos &p, double &value) {
        Node &node = nodes[size_t(ni)];
        int k = node.nchildren;
        int move = moves[node.edges + uint32_t(k)];
        Info info;
        play(p, move == PASS ? PASS : move, info);
        int32_t ci = make_node(p, info, false, value);
        Node &parent = nodes[size_t(ni)];  // make_node may move the pool
        nodes[size_t(ci)].move = uint8_t(move);
        if (parent.last_child < 0)
            parent.first_child = ci;
        else
            nodes[size_t(parent.last_child)].next_sibling = ci;
        parent.last_child = ci;
        parent.nchildren += 1;
        return ci;
    }

    std::vector<int32_t> path;

    // One simulation from the root (search._simulate); false (nothing changed) when the pool
    // is full.  `path`: the nodes whose edge was followed, root first.
    bool simulate() {
        int32_t ni = root;
        Pos p = root_pos;
        path.clear();
        double value;
        const double c = c_puct;
        while (true) {
            Node &node = nodes[size_t(ni)];
            if (node.terminal) {
                value = node.value;
                node.visits += 1;
                node.wsum += value;
                break;
            }
            int k = node.nchildren;
            double sq = c * std::sqrt(double(node.visits));
            double best = -1e30;
            int bi = k;
            int32_t bc = -1;
            const double *pr = &priors[node.edges];
            int i = 0;
            // PUCT: q + c * sqrt(N) * prior / (1 + n) over the visited moves ...
            for (int32_t ci = node.first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling, ++i) {
                const Node &ch = nodes[size_t(ci)];
                double q = -ch.wsum / ch.visits;
                double a = pr[i] / (1 + ch.visits);
                double u = q + sq * a;
                if (u > best) {
                    best = u;
                    bi = i;
                    bc = ci;
                }
            }
            // ... and the best unvisited one, at the first-play urgency
            if (k < node.nmoves) {
                if (node.wsum / node.visits - fpu_reduction + sq * pr[k] > best) bi = k;
            }
            if (bi == k) {
                if (full()) return false;
                path.push_back(ni);
                make_child(ni, p, value);
                break;
            }
            path.push_back(ni);
            place(p, nodes[size_t(bc)].move);
            ni = bc;
        }
        // value: for the side to move below the last node of the path
        for (size_t k = path.size(); k-- > 0;) {
            value = -value;
            Node &n = nodes[size_t(path[k])];
            n.visits += 1;
            n.wsum += value;
        }
        return true;
    }

    int32_t find(const Pos &p) const {
        if (root < 0) return -1;
        if (same_position(root_pos, p)) return root;
        const Node &r = nodes[size_t(root)];
        for (int32_t ci = r.first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling) {
            if (nodes[size_t(ci)].move == p.last_move) {
                Pos q = root_pos;
                place(q, nodes[size_t(ci)].move);
                q.over = nodes[size_t(ci)].terminal != 0;
                if (same_position(q, p)) return ci;
            }
        }
        return -1;
    }

    void observe(const Pos &p) {
        int32_t n = reuse ? find(p) : -1;
        if (n < 0) {
            reset();
        } else {
            root = n;
            root_pos = p;
        }
    }

    // Keep only the subtree of `keep` (sliding compaction: nodes and edges keep their order).
    int32_t compact(int32_t keep) {
        std::vector<int32_t> live;
        live.push_back(keep);
        for (size_t k = 0; k < live.size(); ++k)
            for (int32_t ci = nodes[size_t(live[k])].first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling)
                live.push_back(ci);
        std::sort(live.begin(), live.end());
        std::vector<int32_t> remap(nodes.size(), -1);
        for (size_t k = 0; k < live.size(); ++k) remap[size_t(live[k])] = int32_t(k);
        uint32_t edge_top = 0;
        for (size_t k = 0; k < live.size(); ++k) {
            Node n = nodes[size_t(live[k])];
            uint32_t e = edge_top;
            for (int j = 0; j < n.nmoves; ++j) {
                priors[e + uint32_t(j)] = priors[n.edges + uint32_t(j)];
                moves[e + uint32_t(j)] = moves[n.edges + uint32_t(j)];
            }
            edge_top += n.nmoves;
            n.edges = e;
            n.first_child = n.first_child >= 0 ? remap[size_t(n.first_child)] : -1;
            n.last_child = n.last_child >= 0 ? remap[size_t(n.last_child)] : -1;
            n.next_sibling = n.next_sibling >= 0 && remap[size_t(n.next_sibling)] >= 0
                                 ? remap[size_t(n.next_sibling)]
                                 : -1;
            nodes[k] = n;
        }
        nodes.resize(live.size());
        priors.resize(edge_top);
        moves.resize(edge_top);
        nodes[size_t(remap[size_t(keep)])].next_sibling = -1;
        return remap[size_t(keep)];
    }

    void root_for(const Pos &p) {
        int32_t n = reuse ? find(p) : -1;
        legal_scratch.clear();
        Info info;
        analyse(p, info);
        legal_moves(p, info, legal_scratch);
        if (n >= 0 && !nodes[size_t(n)].terminal) {
            // the kept node's moves are the legal moves (the evaluator lists them all)
            if (nodes.size() * 2 > node_cap || priors.size() * 2 > edge_cap) n = compact(n);
            root = n;
            root_pos = p;
            return;
        }
        reset();
        root_pos = p;
        double v;
        root = make_node(p, info, true, v);
    }

    int best_index() const {
        const Node &r = nodes[size_t(root)];
        int bi = 0;
        int best_n = -1;
        double best_q = 0, best_p = 0;
        std::vector<int32_t> kids = children(root);
        for (int i = 0; i < r.nmoves; ++i) {
            int ni = i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0;
            double qi = ni ? -nodes[size_t(kids[size_t(i)])].wsum / ni : -2.0;
            double pi = priors[r.edges + uint32_t(i)];
            bool better = best_n < 0 || ni > best_n || (ni == best_n && (qi > best_q || (qi == best_q && pi > best_p)));
            if (better) {
                best_n = ni;
                best_q = qi;
                best_p = pi;
                bi = i;
            }
        }
        return bi;
    }

    std::vector<int32_t> children(int32_t ni) const {
        std::vector<int32_t> out;
        for (int32_t ci = nodes[size_t(ni)].first_child; ci >= 0; ci = nodes[size_t(ci)].next_sibling)
            out.push_back(ci);
        return out;
    }

    // Best move for p's side to move; stops at the deadline or after max_sims (search.search).
    template <class Clock>
    int search(const Pos &p, double deadline, long max_sims, Clock now) {
        root_for(p);
        stopped_full = false;
        last_reused = nodes[size_t(root)].visits - 1;
        long sims = 0;
        const int root_moves = nodes[size_t(root)].nmoves;
        if (root_moves > 1) {
            for (int i = nodes[size_t(root)].nchildren; i < root_moves; ++i) {
                if ((deadline >= 0 && now() >= deadline) || (max_sims >= 0 && sims >= max_sims)) break;
                if (full()) {
                    stopped_full = true;
                    break;
                }
                Pos q = root_pos;
                double value;
                int32_t ci = make_child(root, q, value);
                value = -value;
                nodes[size_t(root)].visits += 1;
                nodes[size_t(root)].wsum += value;
                ++sims;
                if (nodes[size_t(ci)].terminal && -value < 0.0) {
                    int move = nodes[size_t(ci)].move;
                    last_sims = int(sims);
                    last_stats.assign(1, Stat{move, 1});
                    root = reuse ? ci : -1;
                    root_pos = q;
                    if (!reuse) reset();
                    return move;
                }
            }
            while (!stopped_full) {
                if (max_sims >= 0 && sims >= max_sims) break;
                if (deadline >= 0 && now() >= deadline) break;
                if (!simulate()) {
                    stopped_full = true;
                    break;
                }
                ++sims;
            }
        }
        last_sims = int(sims);
        const Node *r = &nodes[size_t(root)];
        int bi = best_index();
        std::vector<int32_t> kids = children(root);
        last_stats.clear();
        for (int i = 0; i < r->nmoves; ++i)
            last_stats.push_back(Stat{moves[r->edges + uint32_t(i)],
                                      i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0});
        std::stable_sort(last_stats.begin(), last_stats.end(),
                         [](const Stat &x, const Stat &y) { return x.visits > y.visits; });
        int move = moves[r->edges + uint32_t(bi)];
        if (reuse && bi < int(kids.size())) {
            root = kids[size_t(bi)];
            Pos q = root_pos;
            Info info;
            play(q, move, info);
            root_pos = q;
        } else {
            reset();
        }
        return move;
    }

    // The kept tree's favourite for p, -1 if none (players.BotPlayer._fallback).
    int favourite(const Pos &p) const {
        int32_t n = find(p);
        if (n < 0 || nodes[size_t(n)].terminal || nodes[size_t(n)].nmoves == 0) return -1;
        const Node &node = nodes[size_t(n)];
        std::vector<int32_t> kids = children(n);
        long total = 0;
        for (int32_t k : kids) total += nodes[size_t(k)].visits;
        if (total <= 0) return -1;
        int bi = 0, best_n = -1;
        double best_p = 0;
        for (int i = 0; i < node.nmoves; ++i) {
            int ni = i < int(kids.size()) ? nodes[size_t(kids[size_t(i)])].visits : 0;
            double pi = priors[node.edges + uint32_t(i)];
            if (best_n < 0 || ni > best_n || (ni == best_n && pi > best_p)) {
                best_n = ni;
                best_p = pi;
                bi = i;
            }
        }
        return moves[node.edges + uint32_t(bi)];
    }
};

// ------------------------------------------------------------------------------- the clock
inline double monotonic() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
inline double process_time() { return double(std::clock()) / CLOCKS_PER_SEC; }

struct GameClock {  // clock.GameClock
    double budget, used;
    double started = -1;
    GameClock(double b, double startup) : budget(b), used(startup) {}
    void start(double t) { started = t; }
    void stop() {
        if (started < 0) return;
        used += std::max(0.0, monotonic() - started);
        started = -1;
    }
    double seconds_left() const {
        double running = started < 0 ? 0.0 : std::max(0.0, monotonic() - started);
        return budget - used - running;
    }
};

struct TimeControl {  // clock.TimeControl
    double budget, safety, reserve, floor_s = 0.01, ceiling, share = 1.0, per_empty;
    TimeControl(double b, double s, double pe)
        : budget(b), safety(s), reserve(b * (1.0 - s)), ceiling(b * s / 8.0), per_empty(pe) {}
    double expected_own_moves(const Pos &p) const {
        int empty = NUM_CELLS - count(p.red | p.white | p.neutral);
        return std::max(6.0, per_empty * (empty - 0.35 * NUM_CELLS));
    }
    double allotment(double seconds_left, const Pos &p) const {
        double usable = seconds_left - reserve;
        if (usable <= 0.0) return 0.0;
        double allot = usable * share / expected_own_moves(p);
        allot = std::min(std::max(allot, floor_s), ceiling);
        return std::min(allot, usable);
    }
};

// --------------------------------------------------------------------------------- the bot
struct Options {
    double time = DEFAULT_BUDGET, safety = DEFAULT_SAFETY, c_puct = DEFAULT_C_PUCT,
           fpu = DEFAULT_FPU_REDUCTION, per_empty = DEFAULT_PER_EMPTY;
    bool no_weights = false;
    std::string weights;
    long seed = 0;
    long sims = -1;               // fixed simulations per move (tests); -1: the clock decides
    double pool_mib = 160.0;      // node pool cap
    bool verbose = false;
};

// Node and edge caps for a pool of `mib` MiB (one Node plus ~40 edges of 9 bytes per node).
inline void pool_caps(double mib, size_t &node_cap, size_t &edge_cap) {
    double bytes = mib * 1024.0 * 1024.0;
    double per_node = double(sizeof(Node)) + 4.0 /* compaction map */ + 40.0 * 9.0;
    node_cap = size_t(bytes / per_node);
    edge_cap = node_cap * 40;
    if (node_cap < 1024) node_cap = 1024;
    if (edge_cap < 1024 * 40) edge_cap = 1024 * 40;
}

class Bot {  // players.BotPlayer
  public:
    Evaluator *evaluator;
    TerritoryEvaluator quick;
    TimeControl tc;
    long max_sims;
    MCTS mcts;
    Bot(Evaluator *e, const Options &o, size_t node_cap, size_t edge_cap)
        : evaluator(e), tc(o.time, o.safety, o.per_empty), max_sims(o.sims),
          mcts(e, o.c_puct, o.fpu, node_cap, edge_cap) {}

    void observe(const Pos &p) { mcts.observe(p); }

    int fallback(const Pos &p, const Info &info, const std::vector<int> &legal) {
        int fav = mcts.favourite(p);
        if (fav >= 0 && std::find(legal.begin(), legal.end(), fav) != legal.end()) return fav;
        Evaluation ev;
        quick.evaluate(p, info, true, ev);
        int best = legal[0];
        double bp = -1.0;
        for (int m : legal) {
            double pm = 0.0;
            for (size_t k = 0; k < ev.moves.size(); ++k)
                if (ev.moves[k] == m) pm = ev.priors[k];
            if (pm > bp) {
                bp = pm;
                best = m;
            }
        }
        return best;
    }

    int choose(const Pos &p, double seconds_left) {
        double start = monotonic();
        Info info;
        analyse(p, info);
        std::vector<int> legal;
        legal_moves(p, info, legal);
        int move;
        if (legal.size() == 1) {
            move = legal[0];
            mcts.reset();
        } else if (max_sims >= 0) {
            move = mcts.search(p, -1.0, max_sims, monotonic);
        } else {
            double allot = tc.allotment(seconds_left, p);
            if (allot <= 0.0) {
                move = fallback(p, info, legal);
                mcts.reset();
            } else {
                move = mcts.search(p, start + allot, -1, monotonic);
            }
        }
        if (std::find(legal.begin(), legal.end(), move) == legal.end()) {
            move = legal[0];
            mcts.reset();
        }
        return move;
    }
};

// ----------------------------------------------------------------------------- the protocol
struct ProtocolError {
    std::string message;
};
struct Quit {};
struct Eof {};
struct OutputClosed {};

static std::string strip(const std::string &s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace((unsigned char)s[a])) ++a;
    while (b > a && std::isspace((unsigned char)s[b - 1])) --b;
    return s.substr(a, b - a);
}

// Python's repr() of a str, for the messages the Python bot writes (ASCII escapes).
static std::string py_repr(const std::string &s) {
    bool has_single = s.find('\'') != std::string::npos, has_double = s.find('"') != std::string::npos;
    char q = has_single && !has_double ? '"' : '\'';
    std::string out(1, q);
    for (unsigned char ch : s) {
        if (ch == '\\')
            out += "\\\\";
        else if (ch == (unsigned char)q)
            out += std::string("\\") + char(q);
        else if (ch == '\t')
            out += "\\t";
        else if (ch == '\n')
            out += "\\n";
        else if (ch == '\r')
            out += "\\r";
        else if (ch < 0x20 || ch == 0x7f) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", ch);
            out += buf;
        } else
            out += char(ch);
    }
    return out + q;
}

// The first 40 characters of a UTF-8 string (Python's text[:40]).
static std::string head40(const std::string &s) {
    size_t chars = 0, i = 0;
    while (i < s.size() && chars < 40) {
        ++i;
        while (i < s.size() && ((unsigned char)s[i] & 0xC0) == 0x80) ++i;
        ++chars;
    }
    return s.substr(0, i);
}

static bool read_line(std::string &line) {
    line.clear();
    int ch;
    bool got = false;
    while ((ch = std::getchar()) != EOF) {
        got = true;
        if (ch == '\n') return true;
        line.push_back(char(ch));
    }
    return got;
}

// (line, time read): blank lines skipped; Quit and EOF thrown (protocol._read).
static std::string read_request(double &t) {
    std::string raw;
    while (true) {
        if (!read_line(raw)) throw Eof{};
        std::string line = strip(raw);
        if (!line.empty()) {
            t = monotonic();
            if (line == "Quit") throw Quit{};
            return line;
        }
    }
}

static void say(const std::string &text) {
    std::fputs((text + "\n").c_str(), stderr);
    std::fflush(stderr);
}

static int parse_move(const std::string &text) {
    if (text == "Pass") return PASS;
    int c = BOARD.parse(strip(text));
    if (c < 0) throw ProtocolError{"not a move: " + py_repr(head40(text))};
    return c;
}

static std::string move_name(int move) { return move == PASS ? "Pass" : BOARD.name(move); }

static void apply_opponent(Pos &p, const std::string &text) {
    int move = parse_move(text);
    if (p.over) p.over = false;  // our engine ended the game but the judge goes on
    Info info;
    analyse(p, info);
    std::vector<int> legal;
    legal_moves(p, info, legal);
    if (std::find(legal.begin(), legal.end(), move) == legal.end())
        throw ProtocolError{"illegal move from the opponent: " + py_repr(head40(text))};
    play(p, move, info);
}

static void answer(Bot &bot, Pos &p, GameClock &clock) {
    if (p.over) p.over = false;
    int move = bot.choose(p, clock.seconds_left());
    std::string text = move_name(move) + "\n";
    if (std::fputs(text.c_str(), stdout) < 0 || std::fflush(stdout) != 0) throw OutputClosed{};
    clock.stop();
    Info info;
    play(p, move, info);
}

static int converse(Bot &bot, Pos &p, int colour, double budget, double first_request, double startup) {
    GameClock clock(budget, startup);
    try {
        if (p.to_move == colour && !p.over) {
            clock.start(first_request);
            answer(bot, p, clock);
        }
        while (true) {
            double t;
            std::string line = read_request(t);
            clock.start(t);
            apply_opponent(p, line);
            bot.observe(p);
            answer(bot, p, clock);
        }
    } catch (const Quit &) {
        return 0;
    } catch (const Eof &) {
        say("end of input before Quit; exiting");
        return 0;
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    } catch (const OutputClosed &) {
        say("output closed (BrokenPipeError); exiting");
        return 1;
    }
}

static int run_game(Bot &bot, double budget, double startup) {
    Pos p;
    double t = 0;
    std::string third;
    try {
        double t0;
        int red_cell = parse_move(read_request(t0));
        int white_cell = parse_move(read_request(t0));
        if (red_cell == PASS || white_cell == PASS) throw ProtocolError{"a start cell cannot be Pass"};
        if (red_cell == white_cell)
            throw ProtocolError{"bad start position: red and white start cells must differ"};
        if (red_cell == BOARD.centre || white_cell == BOARD.centre)
            throw ProtocolError{"bad start position: a start cell may not be the centre"};
        p = start_position(red_cell, white_cell);
        third = read_request(t);
    } catch (const Quit &) {
        return 0;
    } catch (const Eof &) {
        say("end of input before the game started; exiting");
        return 0;
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    }
    if (third == "Start") return converse(bot, p, RED, budget, t, startup);
    try {
        apply_opponent(p, third);
    } catch (const ProtocolError &e) {
        say(e.message + "; exiting");
        return 1;
    }
    bot.observe(p);
    return converse(bot, p, WHITE, budget, t, startup);
}

// ------------------------------------------------------------------------- test and bench
// --test: one command a line on stdin, one answer a line on stdout (tests/native/ compares
// them with the Python bot).  A position is "R W m1 m2 ...": the start cells and the moves.
static std::vector<long> numbers(const std::string &line, size_t from) {
    std::vector<long> out;
    const char *s = line.c_str() + from;
    char *end;
    while (true) {
        while (*s == ' ') ++s;
        if (!*s) break;
        long v = std::strtol(s, &end, 10);
        if (end == s) throw Error{"bad number in: " + line.substr(0, 60)};
        out.push_back(v);
        s = end;
    }
    return out;
}

static Pos replay(const std::vector<long> &v, size_t from, Info &info) {
    if (v.size() < from + 2) throw Error{"a position needs two start cells"};
    Pos p = start_position(int(v[from]), int(v[from + 1]));
    analyse(p, info);
    for (size_t k = from + 2; k < v.size(); ++k) play(p, int(v[k]), info);
    return p;
}

static std::string digits(const Planes &pl) {
    std::string s;
    for (int i = 0; i < NUM_CELLS; ++i) s.push_back(char('0' + count_at(pl, i)));
    return s;
}

static std::string cell_list(const Bits &b) {
    std::string s;
    BOARD.cells(b, [&](int c) {
        if (!s.empty()) s += ',';
        s += std::to_string(c);
    });
    return s;
}

// The bench signature of one search (the Python side computes the same from last_stats).
inline uint32_t signature(uint32_t sig, const std::vector<Stat> &stats) {
    for (const Stat &s : stats) sig = sig * 31u + uint32_t(s.move) * 1009u + uint32_t(s.visits);
    return sig;
}

static int test_mode(Evaluator *net, const Options &o) {
    TerritoryEvaluator territory;
    std::string line;
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    while (read_line(line)) {
        line = strip(line);
        if (line.empty()) continue;
        try {
            size_t sp = line.find(' ');
            std::string cmd = line.substr(0, sp);
            std::vector<long> v = sp == std::string::npos ? std::vector<long>() : numbers(line, sp);
            Info info;
            if (cmd == "rules") {
                Pos p = replay(v, 0, info);
                std::vector<int> legal;
                legal_moves(p, info, legal);
                std::string ls;
                for (int m : legal) ls += (ls.empty() ? "" : ",") + std::to_string(m);
                int rs, ws;
                score(info, rs, ws);
                std::printf("legal %s rs %s ws %s tr %s tw %s over %d score %d,%d\n", ls.c_str(),
                            digits(info.rc).c_str(), digits(info.wc).c_str(), cell_list(info.tr).c_str(),
                            cell_list(info.tw).c_str(), p.over ? 1 : 0, rs, ws);
            } else if (cmd == "eval" || cmd == "teval") {
                Evaluator *e = cmd == "eval" ? net : &territory;
                if (!e) throw Error{"no network loaded"};
                Pos p = replay(v, 0, info);
                Evaluation ev;
                e->evaluate(p, info, false, ev);
                std::printf("value %.17g priors", ev.value);
                for (size_t k = 0; k < ev.moves.size(); ++k) std::printf(" %d:%.17g", ev.moves[k], ev.priors[k]);
                std::printf("\n");
            } else if (cmd == "search" || cmd == "tsearch") {
                // search SIMS position: a fresh tree, SIMS simulations
                Evaluator *e = cmd == "search" ? net : &territory;
                if (!e) throw Error{"no network loaded"};
                if (v.empty()) throw Error{"search needs a simulation count"};
                Pos p = replay(v, 1, info);
                if (p.over) throw Error{"the game is over"};
                MCTS m(e, o.c_puct, o.fpu, node_cap, edge_cap);
                m.reuse = false;
                int move = m.search(p, -1.0, v[0], monotonic);
                std::printf("move %d sims %d sig %u\n", move, m.last_sims, signature(0, m.last_stats));
            } else {
                throw Error{"unknown command " + py_repr(cmd)};
            }
        } catch (const Error &e) {
            std::printf("error %s\n", e.message.c_str());
        }
        std::fflush(stdout);
    }
    return 0;
}

// --bench: positions "R W m1 ..." on stdin, a fresh search of --bench-sims each; one line of
// figures (CPU seconds: the figure holds when other work shares the machine).
static int bench_mode(Evaluator *e, const Options &o, long sims) {
    std::vector<Pos> positions;
    std::string line;
    while (read_line(line)) {
        line = strip(line);
        if (line.empty()) continue;
        Info info;
        positions.push_back(replay(numbers(line, 0), 0, info));
        if (positions.back().over) positions.pop_back();  // nothing to search
    }
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    long total = 0;
    uint32_t sig = 0;
    double t0 = process_time();
    for (const Pos &p : positions) {
        MCTS m(e, o.c_puct, o.fpu, node_cap, edge_cap);
        m.reuse = false;
        m.search(p, -1.0, sims, monotonic);
        total += m.last_sims;
        sig = signature(sig, m.last_stats);
    }
    double spent = process_time() - t0;
    std::printf("{\"positions\": %zu, \"sims\": %ld, \"seconds\": %.6f, \"sims_per_s\": %.1f, \"signature\": %u}\n",
                positions.size(), total, spent, spent > 0 ? double(total) / spent : 0.0, sig);
    return 0;
}

// ------------------------------------------------------------------------- self-play data
// --selfplay GAMES --out DIR: games of the bot against itself (one tree, reused by both sides)
// from judge-drawn starts, written as training shards of tw_rl/training/replay_buffer.py's
// format 2 (one .npz per game).  Exploration: for the first --temperature-moves plies the move
// is drawn in proportion to the root's visits, after that it is the search's own answer.  Every
// position with more than one legal move is searched (--sims, 800 by default) and recorded with
// its visit distribution over the legal moves (summing to one); a forced move is not recorded.
// A shard is written under a temporary name and renamed, so a killed run loses only its game
// in flight; names are shard-g<generation>-w<worker>-<index>-n1.npz (--generation, --worker).
constexpr long SELFPLAY_DEFAULT_SIMS = 800;
constexpr int SHARD_FORMAT = 2;  // replay_buffer.SHARD_FORMAT

struct SelfPlayOptions {
    long games = 0;
    std::string out;
    long temperature_moves = 8;
    long generation = 0;
    long worker = -1;  // -1: the seed
};

// The judge's start (rules.judge_start): two cells off the border and the centre, not neighbours.
static void judge_start(std::mt19937_64 &rng, int &red_cell, int &white_cell) {
    std::vector<int> allowed;
    for (int i = 0; i < NUM_CELLS; ++i)
        if (!BOARD.border[i] && i != BOARD.centre) allowed.push_back(i);
    red_cell = allowed[std::uniform_int_distribution<size_t>(0, allowed.size() - 1)(rng)];
    std::vector<int> apart;
    for (int i : allowed) {
        bool near = false;
        for (int d = 0; d < 6; ++d) near = near || BOARD.nbr[red_cell][d] == i;
        if (i != red_cell && !near) apart.push_back(i);
    }
    white_cell = apart[std::uniform_int_distribution<size_t>(0, apart.size() - 1)(rng)];
}

// One recorded position: the stacks, the side to move, and the search's visit distribution.
struct Sample {
    int8_t owner[NUM_CELLS], height[NUM_CELLS];
    int8_t to_move, passes;
    float policy[NUM_CELLS + 1];
};

struct SelfPlayGame {
    std::vector<Sample> samples;
    Bits red_territory, white_territory;
    int winner = 0;  // RED, WHITE or 0
};

static Sample sample_of(const Pos &p, const std::vector<Stat> &stats) {
    Sample s;
    for (int i = 0; i < NUM_CELLS; ++i) {
        s.owner[i] = int8_t(BOARD.has(p.red, i) ? RED : BOARD.has(p.white, i) ? WHITE
                                                     : BOARD.has(p.neutral, i) ? NEUTRAL
                                                                               : EMPTY);
        s.height[i] = int8_t(count_at(p.h, i));
    }
    s.to_move = int8_t(p.to_move);
    s.passes = int8_t(p.passes);
    long total = 0;
    for (const Stat &st : stats) total += st.visits;
    for (float &v : s.policy) v = 0.0f;
    for (const Stat &st : stats) s.policy[st.move] = float(double(st.visits) / double(total));
    return s;
}

// A move drawn in proportion to the root's visits.
static int sample_by_visits(const std::vector<Stat> &stats, std::mt19937_64 &rng) {
    long total = 0;
    for (const Stat &st : stats) total += st.visits;
    long pick = std::uniform_int_distribution<long>(0, total - 1)(rng);
    for (const Stat &st : stats) {
        if (pick < st.visits) return st.move;
        pick -= st.visits;
    }
    return stats.front().move;
}

static SelfPlayGame play_selfplay_game(MCTS &mcts, long sims, long temperature_moves, std::mt19937_64 &rng) {
    SelfPlayGame game;
    int red_cell, white_cell;
    judge_start(rng, red_cell, white_cell);
    Pos p = start_position(red_cell, white_cell);
    Info info;
    analyse(p, info);
    mcts.reset();
    std::vector<int> legal;
    for (long ply = 0; !p.over; ++ply) {
        legal.clear();
        legal_moves(p, info, legal);
        int move = legal[0];
        if (legal.size() > 1) {
            int searched = mcts.search(p, -1.0, sims, monotonic);
            game.samples.push_back(sample_of(p, mcts.last_stats));
            move = ply < temperature_moves ? sample_by_visits(mcts.last_stats, rng) : searched;
        }
        play(p, move, info);
    }
    game.red_territory = info.tr;
    game.white_territory = info.tw;
    int r = count(info.tr), w = count(info.tw);
    game.winner = r > w ? RED : w > r ? WHITE : 0;
    return game;
}

// .npy and .npz (a zip of stored entries) writers: what numpy.load reads.
static uint32_t crc32_of(const std::string &data) {
    static uint32_t table[256];
    static bool ready = false;
    if (!ready) {
        for (uint32_t n = 0; n < 256; ++n) {
            uint32_t c = n;
            for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
            table[n] = c;
        }
        ready = true;
    }
    uint32_t c = 0xFFFFFFFFu;
    for (unsigned char ch : data) c = table[(c ^ ch) & 0xff] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// IEEE half precision of a float, rounded to nearest even (numpy's float16).
static uint16_t half_bits(float value) {
    uint32_t x;
    std::memcpy(&x, &value, sizeof x);
    uint32_t sign = (x >> 16) & 0x8000u;
    int biased = int((x >> 23) & 0xff);
    uint32_t mant = x & 0x7fffffu;
    if (biased == 0) return uint16_t(sign);
    if (biased == 0xff) return uint16_t(sign | 0x7c00u | (mant ? 0x200u : 0u));
    int exp = biased - 127 + 15;
    if (exp >= 31) return uint16_t(sign | 0x7c00u);
    if (exp <= 0) {
        if (exp < -10) return uint16_t(sign);
        mant |= 0x800000u;
        int shift = 14 - exp;
        uint32_t h = mant >> shift, rest = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (h & 1))) ++h;
        return uint16_t(sign | h);
    }
    uint32_t h = (uint32_t(exp) << 10) | (mant >> 13), rest = mant & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (h & 1))) ++h;  // a carry rounds into the exponent
    return uint16_t(sign | h);
}

static void put_le(std::string &s, uint64_t v, int bytes) {
    for (int k = 0; k < bytes; ++k) s.push_back(char((v >> (8 * k)) & 0xff));
}

// A .npy file: the version 1.0 header (padded to 64 bytes) and the little-endian data.
static std::string npy(const std::string &descr, const std::vector<size_t> &shape, const std::string &data) {
    std::string dims;  // Python's tuple: (), (B,) or (B, N)
    for (size_t k = 0; k < shape.size(); ++k) dims += (k ? ", " : "") + std::to_string(shape[k]);
    if (shape.size() == 1) dims += ",";
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    while ((10 + header.size() + 1) % 64) header.push_back(' ');
    header.push_back('\n');
    std::string out = "\x93NUMPY";
    out.push_back('\x01');
    out.push_back('\x00');
    put_le(out, header.size(), 2);
    return out + header + data;
}

struct ZipWriter {
    std::string bytes, directory;
    int entries = 0;
    void add(const std::string &name, const std::string &data) {
        uint32_t crc = crc32_of(data);
        size_t offset = bytes.size();
        auto common = [&](std::string &s) {
            put_le(s, 20, 2);       // version needed: 2.0
            put_le(s, 0, 2);        // flags
            put_le(s, 0, 2);        // method: stored
            put_le(s, 0, 2);        // time
            put_le(s, 0x21, 2);     // date: 1980-01-01
            put_le(s, crc, 4);
            put_le(s, data.size(), 4);
            put_le(s, data.size(), 4);
            put_le(s, name.size(), 2);
            put_le(s, 0, 2);        // extra field
        };
        put_le(bytes, 0x04034b50u, 4);
        common(bytes);
        bytes += name + data;
        put_le(directory, 0x02014b50u, 4);
        put_le(directory, 20, 2);  // made by
        common(directory);
        put_le(directory, 0, 2);   // comment
        put_le(directory, 0, 2);   // disk
        put_le(directory, 0, 2);   // internal attributes
        put_le(directory, 0, 4);   // external attributes
        put_le(directory, offset, 4);
        directory += name;
        ++entries;
    }
    std::string finish() const {
        std::string end;
        put_le(end, 0x06054b50u, 4);
        put_le(end, 0, 2);
        put_le(end, 0, 2);
        put_le(end, entries, 2);
        put_le(end, entries, 2);
        put_le(end, directory.size(), 4);
        put_le(end, bytes.size(), 4);
        put_le(end, 0, 2);
        return bytes + directory + end;
    }
};

// The shard of one game (replay_buffer's format 2): targets from each position's mover's side.
static std::string shard_bytes(const SelfPlayGame &game) {
    const size_t b = game.samples.size(), n = NUM_CELLS;
    std::string owner, height, to_move, passes, policy, value, territory, score;
    int red_view[NUM_CELLS];
    long margin = 0;
    for (int i = 0; i < NUM_CELLS; ++i) {
        red_view[i] = (BOARD.has(game.red_territory, i) ? 1 : 0) - (BOARD.has(game.white_territory, i) ? 1 : 0);
        margin += red_view[i];
    }
    for (const Sample &s : game.samples) {
        int side = s.to_move == RED ? 1 : -1;
        owner.append(reinterpret_cast<const char *>(s.owner), n);
        height.append(reinterpret_cast<const char *>(s.height), n);
        to_move.push_back(char(s.to_move));
        passes.push_back(char(s.passes));
        for (float v : s.policy) put_le(policy, half_bits(v), 2);
        value.push_back(char(game.winner == 0 ? 0 : game.winner == s.to_move ? 1 : -1));
        for (int i = 0; i < NUM_CELLS; ++i) territory.push_back(char(side * red_view[i]));
        float margin_here = float(double(side * margin) / double(n));
        uint32_t bits;
        std::memcpy(&bits, &margin_here, sizeof bits);
        put_le(score, bits, 4);
    }
    std::string version, size;
    put_le(version, SHARD_FORMAT, 8);
    put_le(size, SIZE, 8);
    ZipWriter zip;
    zip.add("format_version.npy", npy("<i8", {}, version));
    zip.add("board_size.npy", npy("<i8", {}, size));
    zip.add("owner.npy", npy("|i1", {b, n}, owner));
    zip.add("height.npy", npy("|i1", {b, n}, height));
    zip.add("to_move.npy", npy("|i1", {b}, to_move));
    zip.add("passes.npy", npy("|i1", {b}, passes));
    zip.add("policy.npy", npy("<f2", {b, n + 1}, policy));
    zip.add("value.npy", npy("|i1", {b}, value));
    zip.add("territory.npy", npy("|i1", {b, n}, territory));
    zip.add("score.npy", npy("<f4", {b}, score));
    return zip.finish();
}

static bool file_exists(const std::string &path) {
    std::FILE *f = std::fopen(path.c_str(), "rb");
    if (f) std::fclose(f);
    return f != nullptr;
}

// Write bytes under a temporary name, then rename: the shard exists whole or not at all.
static void write_renamed(const std::string &path, const std::string &temporary, const std::string &data) {
    std::FILE *f = std::fopen(temporary.c_str(), "wb");
    if (!f) throw Error{"cannot write " + temporary + ": " + std::strerror(errno)};
    bool ok = std::fwrite(data.data(), 1, data.size(), f) == data.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok || std::rename(temporary.c_str(), path.c_str()) != 0) {
        std::remove(temporary.c_str());
        throw Error{"cannot write " + path + ": " + std::strerror(errno)};
    }
}

static std::string shard_name(long generation, long worker, long index) {
    char name[96];
    std::snprintf(name, sizeof name, "shard-g%06ld-w%03ld-%04ld-n1.npz", generation, worker, index);
    return name;
}

// One JSON line a game (its shard, positions, CPU seconds) and one of totals at the end.
static int selfplay_mode(Evaluator *e, const Options &o, const SelfPlayOptions &so) {
    std::error_code err;
    std::filesystem::create_directories(so.out, err);
    if (err) throw Error{"cannot create " + so.out + ": " + err.message()};
    long sims = o.sims > 0 ? o.sims : SELFPLAY_DEFAULT_SIMS;
    long worker = so.worker >= 0 ? so.worker : o.seed;
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    MCTS mcts(e, o.c_puct, o.fpu, node_cap, edge_cap);
    long index = 0, positions = 0;
    double started = process_time();
    for (long g = 0; g < so.games; ++g) {
        std::mt19937_64 rng(uint64_t(o.seed) * 0x9E3779B97F4A7C15ull + uint64_t(g));
        double t0 = process_time();
        SelfPlayGame game = play_selfplay_game(mcts, sims, so.temperature_moves, rng);
        std::string name = shard_name(so.generation, worker, index);
        while (file_exists(so.out + "/" + name)) name = shard_name(so.generation, worker, ++index);
        ++index;
        char tag[32];  // .<name>.<8 characters>.tmp: tw_rl.files' temporary names (remove_temporaries)
        std::snprintf(tag, sizeof tag, ".%08ld.tmp", worker % 100000000);
        write_renamed(so.out + "/" + name, so.out + "/." + name + tag, shard_bytes(game));
        positions += long(game.samples.size());
        std::printf("{\"game\": %ld, \"shard\": \"%s\", \"positions\": %zu, \"winner\": %d, \"seconds\": %.3f}\n",
                    g + 1, name.c_str(), game.samples.size(), game.winner, process_time() - t0);
        std::fflush(stdout);
    }
    double spent = process_time() - started;
    std::printf("{\"games\": %ld, \"positions\": %ld, \"sims\": %ld, \"seconds\": %.3f, \"games_per_s\": %.4f, "
                "\"positions_per_s\": %.2f}\n",
                so.games, positions, sims, spent, spent > 0 ? double(so.games) / spent : 0.0,
                spent > 0 ? double(positions) / spent : 0.0);
    return 0;
}

}  // namespace tw

// ------------------------------------------------------------------------------ command line
namespace {

[[noreturn]] void usage_error(const std::string &message) {
    std::fprintf(stderr, "tw_rl.native: %s\n", message.c_str());
    std::exit(2);
}

double number_option(const std::string &name, const char *text) {
    char *end = nullptr;
    double v = std::strtod(text, &end);
    if (end == text || *end != '\0' || std::isnan(v))
        usage_error("argument " + name + ": invalid float value: '" + text + "'");
    return v;
}

long int_option(const std::string &name, const char *text) {
    char *end = nullptr;
    long v = std::strtol(text, &end, 10);
    if (end == text || *end != '\0') usage_error("argument " + name + ": invalid int value: '" + text + "'");
    return v;
}

const char *USAGE =
    "usage: bot [--time S] [--safety F] [--c-puct C] [--fpu F] [--per-empty F] [--weights FILE | --no-weights]\n"
    "           [--seed S] [--size 6] [--sims N] [--pool-mib M] [--test | --bench N | --defaults]\n"
    "       bot --selfplay GAMES --out DIR [--sims N] [--seed S] [--temperature-moves K] [--generation G]\n"
    "           [--worker W] [--weights FILE]   (training shards of self-play games)\n"
    "Play one CodeCup Tumbleweed game on stdin/stdout (the native twin of python -m tw_rl.codecup).\n";

}  // namespace

int main(int argc, char **argv) {
    using namespace tw;
#ifdef SIGPIPE
    std::signal(SIGPIPE, SIG_IGN);  // a closed pipe is an error to report, not a death
#endif
    Options o;
    bool test = false, defaults = false, no_weights_given = false;
    long bench = -1;
    SelfPlayOptions selfplay;
    bool selfplay_given = false;
    std::string selfplay_only;  // the last self-play option given (an error without --selfplay)
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::string value;
        bool inline_value = false;
        size_t eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
            inline_value = true;
        }
        auto next = [&]() -> const char * {
            if (inline_value) return argv[i] + (eq + 1);
            if (i + 1 >= argc) usage_error("argument " + a + ": expected one argument");
            return argv[++i];
        };
        if (a == "--time")
            o.time = number_option(a, next());
        else if (a == "--safety")
            o.safety = number_option(a, next());
        else if (a == "--c-puct")
            o.c_puct = number_option(a, next());
        else if (a == "--fpu")
            o.fpu = number_option(a, next());
        else if (a == "--per-empty")
            o.per_empty = number_option(a, next());
        else if (a == "--weights")
            o.weights = next();
        else if (a == "--no-weights") {
            o.no_weights = true;
            no_weights_given = true;
        } else if (a == "--seed")
            o.seed = int_option(a, next());
        else if (a == "--size") {
            long s = int_option(a, next());
            if (s != SIZE) usage_error("argument --size: this build plays the size-6 board only");
        } else if (a == "--sims")
            o.sims = int_option(a, next());
        else if (a == "--pool-mib")
            o.pool_mib = number_option(a, next());
        else if (a == "--test")
            test = true;
        else if (a == "--bench")
            bench = int_option(a, next());
        else if (a == "--defaults")
            defaults = true;
        else if (a == "--selfplay") {
            selfplay.games = int_option(a, next());
            selfplay_given = true;
        } else if (a == "--out") {
            selfplay.out = next();
            selfplay_only = a;
        } else if (a == "--temperature-moves") {
            selfplay.temperature_moves = int_option(a, next());
            selfplay_only = a;
        } else if (a == "--generation") {
            selfplay.generation = int_option(a, next());
            selfplay_only = a;
        } else if (a == "--worker") {
            selfplay.worker = int_option(a, next());
            selfplay_only = a;
        } else if (a == "-h" || a == "--help") {
            std::fputs(USAGE, stdout);
            return 0;
        } else
            usage_error("unrecognized arguments: " + std::string(argv[i]));
    }
    if (!o.weights.empty() && no_weights_given)
        usage_error("argument --no-weights: not allowed with argument --weights");
    if (!(o.time > 0)) usage_error("--time must be positive, got " + std::to_string(o.time));
    if (!(o.safety > 0 && o.safety <= 1)) usage_error("--safety must be in (0, 1], got " + std::to_string(o.safety));
    if (!(o.c_puct > 0) || !(o.per_empty > 0)) usage_error("--c-puct and --per-empty must be positive");
    if (!(o.pool_mib >= 1 && o.pool_mib <= 4096)) usage_error("--pool-mib must be in [1, 4096]");
    if (o.sims == 0 || o.sims < -1) usage_error("--sims must be at least 1");
    if (selfplay_given) {
        if (selfplay.games < 1) usage_error("--selfplay needs at least 1 game");
        if (selfplay.out.empty()) usage_error("--selfplay needs --out DIR");
        if (selfplay.temperature_moves < 0) usage_error("--temperature-moves must be >= 0");
        if (selfplay.generation < 0 || selfplay.worker < -1) usage_error("--generation and --worker must be >= 0");
        if (o.seed < 0) usage_error("--seed must be >= 0 with --selfplay");
    } else if (!selfplay_only.empty()) {
        usage_error("argument " + selfplay_only + ": not allowed without --selfplay");
    }
    if (defaults) {
        std::printf("budget %.17g\nsafety %.17g\nper_empty %.17g\nc_puct %.17g\nfpu_reduction %.17g\n"
                    "fixed_bits %d\nhidden_bits %d\nformat_version %d\nboard_size %d\nembedded_weights %d\n",
                    DEFAULT_BUDGET, DEFAULT_SAFETY, DEFAULT_PER_EMPTY, DEFAULT_C_PUCT, DEFAULT_FPU_REDUCTION,
                    FIXED_BITS, HIDDEN_BITS, FORMAT_VERSION, SIZE, EMBEDDED_WEIGHTS[0] != nullptr ? 1 : 0);
        return 0;
    }
    std::unique_ptr<Evaluator> evaluator;
    try {
        if (!o.weights.empty()) {
            evaluator.reset(new Network(parse_weights(read_file(o.weights), "weights file " + o.weights)));
        } else if (!o.no_weights && EMBEDDED_WEIGHTS[0] != nullptr) {
            std::string text;
            for (int k = 0; EMBEDDED_WEIGHTS[k] != nullptr; ++k) text += EMBEDDED_WEIGHTS[k];
            evaluator.reset(new Network(
                parse_weights(base64_decode(text), std::string("embedded weights ") + EMBEDDED_WEIGHTS_NAME)));
        }
    } catch (const Error &e) {
        std::fprintf(stderr, "tw_rl.native: %s\n", e.message.c_str());
        return 2;
    }
    if (test) return test_mode(evaluator.get(), o);
    TerritoryEvaluator territory;
    Evaluator *e = evaluator ? evaluator.get() : &territory;
    if (bench >= 0) {
        if (bench < 1) usage_error("--bench needs at least 1 simulation");
        return bench_mode(e, o, bench);
    }
    if (selfplay_given) {
        try {
            return selfplay_mode(e, o, selfplay);
        } catch (const Error &ex) {
            std::fprintf(stderr, "tw_rl.native: %s\n", ex.message.c_str());
            return 1;
        }
    }
    size_t node_cap, edge_cap;
    pool_caps(o.pool_mib, node_cap, edge_cap);
    Bot bot(e, o, node_cap, edge_cap);
    try {
        // the CPU time so far (start-up, the weights) counts against the game clock
        return run_game(bot, o.time, process_time());
    } catch (const std::exception &ex) {
        std::fprintf(stderr, "tw_rl.native: internal error (%s); exiting\n", ex.what());
        return 1;
    }
}
