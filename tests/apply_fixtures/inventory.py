"""A small warehouse inventory: items, stock levels per location, reservations and reports.

This module is a test fixture for the apply-edit merge: it is meant to look like ordinary
application code (classes, decorators, docstrings, module functions), not to be imported.
"""
from __future__ import annotations

import csv
import io
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from decimal import Decimal
from functools import total_ordering
from typing import Iterable, Iterator

log = logging.getLogger(__name__)

DEFAULT_REORDER_LEVEL = 5
MAX_RESERVATION_DAYS = 14
CURRENCY = "EUR"


class InventoryError(Exception):
    """Base class for the errors this module raises."""


class OutOfStock(InventoryError):
    """Raised when a reservation asks for more units than a location holds."""

    def __init__(self, sku: str, wanted: int, available: int):
        super().__init__(f"{sku}: wanted {wanted}, only {available} available")
        self.sku = sku
        self.wanted = wanted
        self.available = available


@total_ordering
@dataclass(frozen=True)
class Item:
    """One kind of thing the warehouse stores, identified by its SKU."""

    sku: str
    name: str
    unit_price: Decimal
    weight_grams: int = 0
    tags: tuple[str, ...] = ()

    def __lt__(self, other: "Item") -> bool:
        return self.sku < other.sku

    @property
    def is_heavy(self) -> bool:
        """Items over 20 kg need two people to move."""
        return self.weight_grams > 20_000

    @classmethod
    def from_row(cls, row: dict[str, str]) -> "Item":
        """Build an item from a CSV row with the columns sku, name, price, weight and tags."""
        tags = tuple(t.strip() for t in row.get("tags", "").split(";") if t.strip())
        return cls(
            sku=row["sku"].strip().upper(),
            name=row["name"].strip(),
            unit_price=Decimal(row["price"]),
            weight_grams=int(row.get("weight") or 0),
            tags=tags,
        )

    def label(self) -> str:
        return f"{self.sku} {self.name} ({self.unit_price} {CURRENCY})"


@dataclass
class Reservation:
    """Units of one item held for an order until `expires`."""

    order_id: str
    sku: str
    quantity: int
    location: str
    expires: date

    def expired(self, today: date | None = None) -> bool:
        today = today or date.today()
        return today > self.expires


@dataclass
class Location:
    """A shelf or bin: how many units of each SKU it holds."""

    code: str
    capacity: int = 1000
    stock: dict[str, int] = field(default_factory=dict)

    def quantity(self, sku: str) -> int:
        return self.stock.get(sku, 0)

    def free_space(self) -> int:
        return self.capacity - sum(self.stock.values())

    def put(self, sku: str, quantity: int) -> None:
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        if quantity > self.free_space():
            raise InventoryError(f"location {self.code} is full")
        self.stock[sku] = self.quantity(sku) + quantity

    def take(self, sku: str, quantity: int) -> None:
        have = self.quantity(sku)
        if quantity > have:
            raise OutOfStock(sku, quantity, have)
        if quantity == have:
            del self.stock[sku]
        else:
            self.stock[sku] = have - quantity


class Inventory:
    """All items, locations and reservations of one warehouse."""

    def __init__(self, name: str, reorder_level: int = DEFAULT_REORDER_LEVEL):
        self.name = name
        self.reorder_level = reorder_level
        self.items: dict[str, Item] = {}
        self.locations: dict[str, Location] = {}
        self.reservations: list[Reservation] = []

    def __repr__(self) -> str:
        return f"Inventory({self.name!r}, items={len(self.items)}, locations={len(self.locations)})"

    def add_item(self, item: Item) -> None:
        if item.sku in self.items:
            raise InventoryError(f"duplicate SKU {item.sku}")
        self.items[item.sku] = item
        log.debug("added item %s", item.sku)

    def add_location(self, code: str, capacity: int = 1000) -> Location:
        loc = self.locations.setdefault(code, Location(code, capacity))
        return loc

    def receive(self, sku: str, quantity: int, location: str) -> None:
        """Book `quantity` units of `sku` arriving at `location`."""
        if sku not in self.items:
            raise InventoryError(f"unknown SKU {sku}")
        self.add_location(location).put(sku, quantity)
        log.info("received %d x %s at %s", quantity, sku, location)

    def on_hand(self, sku: str) -> int:
        """Units of `sku` in all locations, reserved ones included."""
        return sum(loc.quantity(sku) for loc in self.locations.values())

    def reserved(self, sku: str, today: date | None = None) -> int:
        return sum(r.quantity for r in self.reservations if r.sku == sku and not r.expired(today))

    def available(self, sku: str, today: date | None = None) -> int:
        return self.on_hand(sku) - self.reserved(sku, today)

    def reserve(self, order_id: str, sku: str, quantity: int, days: int = 3) -> Reservation:
        """Hold units for an order; the reservation lapses after `days` days."""
        if days > MAX_RESERVATION_DAYS:
            raise InventoryError(f"reservations last at most {MAX_RESERVATION_DAYS} days")
        free = self.available(sku)
        if quantity > free:
            raise OutOfStock(sku, quantity, free)
        best = max(self.locations.values(), key=lambda loc: loc.quantity(sku))
        res = Reservation(order_id, sku, quantity, best.code, date.today() + timedelta(days=days))
        self.reservations.append(res)
        return res

    def release(self, order_id: str) -> int:
        """Drop the reservations of an order; returns how many were dropped."""
        before = len(self.reservations)
        self.reservations = [r for r in self.reservations if r.order_id != order_id]
        return before - len(self.reservations)

    def ship(self, order_id: str) -> list[tuple[str, int]]:
        shipped = []
        for res in [r for r in self.reservations if r.order_id == order_id]:
            self.locations[res.location].take(res.sku, res.quantity)
            shipped.append((res.sku, res.quantity))
        self.release(order_id)
        return shipped

    def low_stock(self) -> list[Item]:
        return sorted(item for sku, item in self.items.items() if self.available(sku) < self.reorder_level)

    def value(self) -> Decimal:
        total = Decimal(0)
        for sku, item in self.items.items():
            total += item.unit_price * self.on_hand(sku)
        return total

    def purge_expired(self, today: date | None = None) -> int:
        keep = [r for r in self.reservations if not r.expired(today)]
        dropped = len(self.reservations) - len(keep)
        self.reservations = keep
        return dropped

    @staticmethod
    def parse_quantity(text: str) -> int:
        """Parse '12', '1 dozen' or '3 x 4' into a number of units."""
        text = text.strip().lower()
        if text.endswith("dozen"):
            return 12 * int(text[:-5].strip() or 1)
        if "x" in text:
            a, b = text.split("x", 1)
            return int(a) * int(b)
        return int(text)


def load_items(text: str) -> Iterator[Item]:
    """Items from CSV text with a header row."""
    for row in csv.DictReader(io.StringIO(text)):
        if not row.get("sku"):
            continue
        yield Item.from_row(row)


def group_by_tag(items: Iterable[Item]) -> dict[str, list[Item]]:
    groups: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        for tag in item.tags or ("untagged",):
            groups[tag].append(item)
    return dict(groups)


def stock_report(inv: Inventory, today: date | None = None) -> str:
    """A plain-text table: SKU, name, on hand, reserved, available."""
    rows = [("SKU", "Name", "On hand", "Reserved", "Available")]
    for sku in sorted(inv.items):
        item = inv.items[sku]
        rows.append((sku, item.name, str(inv.on_hand(sku)), str(inv.reserved(sku, today)),
                     str(inv.available(sku, today))))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip())
    return "\n".join(lines) + "\n"


def reorder_suggestions(inv: Inventory, lead_days: int = 7) -> dict[str, int]:
    """How many units of each low item to order so that it lasts `lead_days` more days."""
    out = {}
    for item in inv.low_stock():
        missing = inv.reorder_level - inv.available(item.sku)
        out[item.sku] = max(missing, 0) + lead_days
    return out


def _demo() -> None:
    inv = Inventory("north")
    inv.add_item(Item("A-1", "Anvil", Decimal("99.90"), weight_grams=45_000, tags=("tools", "heavy")))
    inv.add_item(Item("B-2", "Bolt", Decimal("0.10"), weight_grams=12))
    inv.receive("A-1", 3, "R1")
    inv.receive("B-2", 400, "R2")
    inv.reserve("o-1", "B-2", 150)
    print(stock_report(inv))
    print(reorder_suggestions(inv))


if __name__ == "__main__":
    _demo()
