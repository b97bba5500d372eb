"""Generated household-like notes and questions for the retrieval benchmarks: real text for
the real embedder, so the vectors cluster as a home's documents do (random vectors do not)."""

from __future__ import annotations

import random

PEOPLE = ["Anna", "Ben", "Chloe", "Dev", "Ellie", "Farid", "Grandma", "Hugo", "Iris", "Jonas",
          "the plumber", "the neighbours", "the babysitter", "the landlord", "Uncle Tom"]
ROOMS = ["kitchen", "garage", "attic", "garden shed", "hallway", "bathroom", "cellar", "loft",
         "utility room", "spare bedroom", "porch", "living room", "study", "greenhouse"]
THINGS = ["spare key", "fuse box", "water valve", "ladder", "first-aid kit", "torch", "boiler",
          "bike pump", "paint tins", "router", "smoke alarm", "dishwasher", "washing machine",
          "freezer", "lawnmower", "solar inverter", "heat pump", "car battery charger",
          "passport folder", "tax documents", "insurance policy", "vacuum cleaner", "dehumidifier",
          "printer", "piano", "aquarium filter", "sourdough starter", "bird feeder", "gas meter",
          "stopcock", "extension lead", "tent", "sewing machine", "bread maker", "thermostat"]
CHORES = ["is kept", "was moved", "should be checked", "gets serviced", "needs descaling",
          "must be cleaned", "was repaired", "is charged", "gets refilled", "was replaced",
          "is inspected", "needs new batteries", "should be switched off", "is locked away"]
WHEN = ["every Tuesday", "in spring", "after storms", "on the first of the month", "at dawn",
        "before the holidays", "every other Friday", "in late autumn", "once a year in March",
        "when the light blinks red", "after every wash", "on bin day", "each school term"]
DETAILS = ["The code is {n}.", "It cost {n} pounds last time.", "Call {p} if it leaks.",
           "{p} has the receipt.", "The manual says to wait {n} minutes.",
           "The warranty runs until {year}.", "Set it to {n} degrees.", "{p} knows the trick.",
           "The pressure should stay near {d} bar.", "It takes about {n} minutes.",
           "Write the date on the card by the door.", "Do not use the blue cleaner on it."]
QUESTIONS = ["Where is the {t} kept?", "When does the {t} get serviced?",
             "Who should I call about the {t}?", "How often is the {t} checked?",
             "What do I do when the {t} stops working?", "Where did we move the {t} to?"]


def _detail(rng: random.Random) -> str:
    return rng.choice(DETAILS).format(n=rng.randint(2, 9999), p=rng.choice(PEOPLE),
                                      year=rng.randint(2025, 2034), d=rng.choice(["1.2", "1.5"]))


def note(rng: random.Random, sentences: int) -> str:
    """One note of ``sentences`` sentences about the same thing."""
    thing, room = rng.choice(THINGS), rng.choice(ROOMS)
    out = [f"The {thing} {rng.choice(CHORES)} in the {room} {rng.choice(WHEN)}."]
    while len(out) < sentences:
        out.append(_detail(rng) if rng.random() < 0.6 else
                   f"{rng.choice(PEOPLE)} said the {thing} {rng.choice(CHORES)} "
                   f"{rng.choice(WHEN)}.")
    return " ".join(out)


def notes(n: int, seed: int = 11, sentences: tuple[int, int] = (1, 4)) -> list[str]:
    """``n`` notes of a few sentences each."""
    rng = random.Random(seed)
    return [note(rng, rng.randint(*sentences)) for _ in range(n)]


def chunk_texts(n: int, seed: int = 5) -> list[str]:
    """Realistic chunk text: pieces of 20 to ~256 word pieces, as the chunker cuts them."""
    rng = random.Random(seed)
    return [note(rng, rng.choice([1, 2, 3, 6, 10, 14, 18])) for _ in range(n)]


def questions(n: int, seed: int = 3) -> list[str]:
    rng = random.Random(seed)
    return [rng.choice(QUESTIONS).format(t=rng.choice(THINGS)) for _ in range(n)]
