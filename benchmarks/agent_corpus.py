"""The household set the agent is measured on: documents (benchmarks/rag_corpus.py's twenty, written
for this project), twelve questions with the expected fact as a regex, time, device-status and
chit-chat requests, a five-turn conversation, and a labelled set for the tool router."""

from __future__ import annotations

from benchmarks.rag_corpus import DOCUMENTS

__all__ = ["CHAT", "CONVERSATION", "DOCUMENTS", "KNOWLEDGE", "LABELLED", "STATUS", "TIME"]

# question -> regex the answer must match (case-insensitive) to state the fact
KNOWLEDGE = {
    "How do I shut off the water?": r"stopcock|clockwise",
    "When is the rubbish collected?": r"tuesday",
    "What should the boiler pressure be?": r"1\.5|1 and 1|one and one",
    "What time does the cat get fed?": r"7 ?am|6 ?pm|7 and 6|seven",
    "What is the Wi-Fi network called?": r"lighthouse",
    "How long do I bake the sourdough?": r"20 minutes|40 minutes|twenty",
    "Where is the fuse box?": r"garage",
    "When does the house insurance renew?": r"september",
    "When are the piano lessons?": r"thursday",
    "What temperature should the freezer be kept at?": r"eighteen|-18|minus 18",
    "How much electricity do the solar panels produce?": r"3,?800",
    "Where does the holiday ferry leave from?": r"plymouth",
}

TIME = ["What time is it?", "Could you tell me the time, please?", "What's the time right now?",
        "Do you know what time it is?", "Tell me the current time."]

STATUS = ["How much memory does the box have free?", "How is the box doing?",
          "How long has the box been up?"]

CHAT = ["Tell me a joke.", "Hello! How are you?", "Write a haiku about rain.",
        "Thanks for your help!"]

CONVERSATION = ["Hi, I'm making bread today.", "How long do I bake the sourdough?",
                "And how much flour goes in?", "What should I do with the cat meanwhile?",
                "Thanks, that's all."]

# request -> the tool it should call (None: no tool). None of these is a tool's own example.
LABELLED: dict[str, str | None] = {
    "what's the time": "get_time", "time please": "get_time",
    "Can you tell me what time it is now?": "get_time", "which day is it today?": "get_time",
    "What's the date?": "get_time", "what time is it in New York?": "get_time",
    "Is it late already?": "get_time", "How late is it?": "get_time",
    "What month is it?": "get_time", "do you know the time": "get_time",
    "How much RAM is free?": "device_status", "Is the box running hot?": "device_status",
    "how busy is the processor": "device_status", "Is there enough storage left?":
    "device_status", "box health check": "device_status", "What's your uptime?":
    "device_status", "How much free space is on the disk?": "device_status",
    **{q: None for q in KNOWLEDGE}, **{q: None for q in CHAT},
    "When is school pickup?": None, "Where is the bike lock key?": None,
    "Who walks the neighbour's dog?": None, "When is the car's MOT due?": None,
    "How often do I water the cactus?": None, "What's the alarm code procedure?": None,
    "When do I feed the tomatoes?": None, "What is the capital of France?": None,
    "Explain photosynthesis simply.": None, "Give me a recipe for pancakes.": None,
    "How do I restart the router?": None, "What time is school pickup?": None,
    "When does the doctor's surgery open?": None, "What time does the ferry leave?": None,
}
