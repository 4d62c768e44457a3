"""A small inventory module: the file `redraft demo` opens and types into."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Item:
    name: str
    price: float
    quantity: int = 0

    def total(self) -> float:
        return self.price * self.quantity


def most_valuable(items: list[Item]) -> Item | None:
    """The item whose stock is worth the most, or None for an empty list."""
    best = None
    for item in items:
        if best is None or item.total() > best.total():
            best = item
    return best


def restock(items: list[Item], amount: int) -> None:
    """Add `amount` to the quantity of every item that has run out."""
