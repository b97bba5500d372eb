"""Secrets in notes: found by the word that names them, hidden unless asked for."""

from __future__ import annotations

import pytest

from nekoni_edge.agent import answer, secrets
from nekoni_edge.store.chunks import Hit


@pytest.mark.parametrize(("text", "kind", "value"), [
    ("The garage door keypad code is 40917.", "code", "40917"),
    ("Use PIN 3302 at the side gate.", "code", "3302"),
    ("The shed padlock combination: 881.", "code", "881"),
    ("Our energy account number is EN-77120-B.", "account", "EN-77120-B"),
    ("Swim club membership number: SC 40213.", "account", "40213"),
    ("Breakdown cover membership 7710 2284 (the RAC).", "account", "7710 2284"),
    ("The laptop password is marmalade.", "password", "marmalade"),
    ("Ring the warden and say the password otter-twelve.", "password", "otter-twelve"),
    ("The home cover is with Castle under policy CC-55102.", "policy", "CC-55102"),
    # A number qualifying the secret is not its value: the one after "is" is.
    ("The combination for 2027 is 3-1-8-8.", "code", "3-1-8-8"),
    ("The code for door 2 is 4417.", "code", "4417"),
])
def test_a_secret_is_found_by_the_word_that_names_it(text: str, kind: str, value: str) -> None:
    [found] = secrets.find(text)
    assert (found.kind, found.value) == (kind, value)
    assert value not in secrets.hide(text)
    assert secrets.HIDDEN in secrets.hide(text)


def test_a_value_is_kept_for_a_question_asking_for_its_kind() -> None:
    text = "The locker is number 52 and the gym door PIN is 6620."
    assert secrets.asked("What's the gym door passcode?") == {"code"}
    assert "6620" in secrets.hide(text, secrets.asked("What's the gym door passcode?"))
    hidden = secrets.hide(text, secrets.asked("Which locker is mine?"))
    assert "6620" not in hidden
    assert "52" in hidden  # a locker's number is no secret


def test_a_secret_named_without_a_value_is_left_alone() -> None:
    text = "The code for the bike lock is on the card in the drawer."
    assert secrets.find(text) == []
    assert secrets.hide(text) == text


def test_the_model_never_reads_a_secret_the_question_does_not_ask_for() -> None:
    note = Hit("d", "cottage.md", 0, None, "The key box is by the porch; its code is 2291. "
               "Bins go out on Tuesday.", 0.5, heading="Cottage › Arrival")
    prompt = answer.compose("When do the bins go out?", [], [note])
    assert "2291" not in prompt
    assert "Cottage › Arrival:" in prompt  # the note's section says what it is about
    assert "2291" in answer.compose("What's the key box code?", [], [note])


def test_a_secret_word_qualifying_another_asks_for_the_last() -> None:
    # "The bank account password" asks a password: the account number stays hidden.
    assert secrets.asked("What is the bank account password?") == {"password"}
    assert secrets.asked("What's the account number?") == {"account"}
    assert secrets.asked("What's the Wi-Fi password and the gate code?") == {"password", "code"}
    note = "Pay by transfer to account 55019283, reference INV-4."
    assert "55019283" not in secrets.hide(note, secrets.asked("What is the account password?"))


def test_a_secret_word_after_for_or_of_says_whose_the_asked_one_is() -> None:
    # "The PIN for the savings account" asks a PIN; the account's number stays hidden.
    assert secrets.asked("What's the PIN for the savings account?") == {"code"}
    assert secrets.asked("What is the password of the energy account?") == {"password"}
    # Two asked with "and" between them are both asked.
    assert secrets.asked("What's the policy number and the account number?") == {
        "policy", "account"}
    note = "Savings account number: 40119233815."
    assert "33815" not in secrets.hide(note, secrets.asked("What's the PIN for the savings "
                                                           "account?"))


def test_where_a_password_is_is_no_password() -> None:
    # A participle before a place says where it is; the value beside it is still found.
    assert secrets.find("The password is written on the card under the router.") == []
    assert secrets.find("The password is also taped inside the cupboard door.") == []
    assert [s.value for s in secrets.find("The password is golden42.")] == ["golden42"]
    assert [s.value for s in secrets.find("The password is also raven.")] == ["raven"]


def test_a_date_or_a_time_after_a_secrets_word_is_no_secret() -> None:
    # A renewal day is when, not a policy's number; a time is not a code.
    assert secrets.find("The caravan policy renews on 14 March each year.") == []
    assert secrets.find("Our account is reviewed on the 2nd.") == []
    assert secrets.find("The door code changes at 6pm.") == []
    assert secrets.hide("The gate code is 8812; it changes on 1 May.") == (
        "The gate code is (not shown); it changes on 1 May.")


def test_a_secret_named_as_another_things_is_hidden_even_when_its_kind_is_asked() -> None:
    """"Bike lock code: 5512" answers no question about the shed's code; named as the question
    names it, after a determiner only, or under a heading holding all the question names, it
    stays."""
    kinds = secrets.asked("What's the code for the garden shed?")
    about = secrets.whose("What's the code for the garden shed?")
    assert "5512" not in secrets.hide("Bike lock code: 5512 (it is in the shed).", kinds, about)
    assert "6620" in secrets.hide("Shed padlock code 6620.", kinds, about)
    assert "6620" in secrets.hide("The key is on the hook and the code is 6620.", kinds, about)
    assert "6620" in secrets.hide("Use the side door, whose code is 6620.", kinds, about)
    assert "6620" in secrets.hide("Padlock code: 6620.", kinds, about, "garden shed")
