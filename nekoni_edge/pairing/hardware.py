"""The box's button and LED through gpiozero; its callbacks reach the loop thread-safely."""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from nekoni_edge.pairing.window import LED_WORDS, LONG_PRESS_S, Led

if TYPE_CHECKING:
    from nekoni_edge.config import Settings
    from nekoni_edge.pairing.service import LedOutput, PairingService

_LOGGER = logging.getLogger(__name__)

BOUNCE_S = 0.05
# (on_time, off_time, repeats or None for forever) per pattern
PATTERNS: dict[Led, tuple[float, float, int | None]] = {
    Led.SLOW_BLINK: (1.0, 1.0, None),
    Led.FAST_BLINK: (0.15, 0.15, None),
    Led.SOLID: (2.0, 0.0, 1),
    Led.TRIPLE_FLASH: (0.15, 0.15, 3),
}


class GpioUnavailable(Exception):
    """No pin factory works on this machine (not a Pi, or no permission)."""


class GpioButton:
    """A debounced push button; a hold of ``hold_s`` is a long press."""

    def __init__(
        self,
        pin: int,
        *,
        pull_up: bool,
        on_press: Callable[[], None],
        on_long_press: Callable[[], None],
        hold_s: float | None = None,
        bounce_s: float = BOUNCE_S,
    ) -> None:
        from gpiozero import Button  # hardware library, adapter only
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        loop = asyncio.get_running_loop()
        try:
            with warnings.catch_warnings():  # each failed pin factory warns; we log one line
                warnings.simplefilter("ignore", PinFactoryFallback)
                self._button = Button(
                    pin, pull_up=pull_up, bounce_time=bounce_s,
                    hold_time=LONG_PRESS_S if hold_s is None else hold_s,
                )
        except (BadPinFactory, GPIOZeroError, OSError) as exc:
            raise GpioUnavailable(str(exc)) from exc
        self._held = False

        # gpiozero calls these from its own threads: hand them to the loop.
        def pressed() -> None:
            self._held = False

        def held() -> None:
            self._held = True
            loop.call_soon_threadsafe(on_long_press)

        def released() -> None:
            if not self._held:
                loop.call_soon_threadsafe(on_press)

        self._button.when_pressed = pressed
        self._button.when_held = held
        self._button.when_released = released
        _LOGGER.info("button on GPIO%d (pull_up=%s)", pin, pull_up)

    def close(self) -> None:
        self._button.close()


class GpioLed:
    """The status LED."""

    def __init__(self, pin: int) -> None:
        from gpiozero import LED
        from gpiozero.exc import BadPinFactory, GPIOZeroError, PinFactoryFallback

        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", PinFactoryFallback)
                self._led: Any = LED(pin)
        except (BadPinFactory, GPIOZeroError, OSError) as exc:
            raise GpioUnavailable(str(exc)) from exc
        self.pattern = Led.OFF

    def show(self, pattern: Led) -> None:
        self.pattern = pattern
        _LOGGER.info("LED %s", LED_WORDS[pattern])
        if pattern is Led.OFF:
            self._led.off()
            return
        on_time, off_time, repeats = PATTERNS[pattern]
        self._led.blink(on_time=on_time, off_time=off_time, n=repeats, background=True)

    def close(self) -> None:
        self._led.close()


def gpio_led(pin: int, hardware: list[Any]) -> LedOutput:
    """The LED on ``pin`` (kept in ``hardware`` to be closed), or log lines without GPIO."""
    from nekoni_edge.pairing.service import LogLed

    try:
        led = GpioLed(pin)
    except GpioUnavailable as exc:
        _LOGGER.info("no GPIO LED (%s); LED changes are logged", exc)
        return LogLed()
    hardware.append(led)
    return led


def start_button(settings: Settings, pairing: PairingService, hardware: list[Any]) -> None:
    """The button: a press and a long press go to ``pairing`` on the running loop."""
    tasks: set[asyncio.Task[None]] = set()

    def spawn(coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        tasks.add(task)
        task.add_done_callback(tasks.discard)

    try:
        button = GpioButton(
            settings.button_pin, pull_up=settings.button_pull_up,
            on_press=lambda: spawn(pairing.press()),
            on_long_press=lambda: spawn(pairing.long_press()),
        )
    except GpioUnavailable as exc:
        _LOGGER.info("no GPIO button (%s); simulate it with 'nekoni-edge press'", exc)
        return
    hardware.append(button)
