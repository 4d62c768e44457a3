"""Issue 43: a method shown without its class, in a file where several classes have it, goes to the one
most like it token by token (candidates.most_alike), unless that likeness is faint (under one half:
candidates.FAINT) and its text names a word of another candidate's class name that no other candidate's
name or code has (strawberry's exceptions.py, fresh27: a new
`MaybeFieldError.__init__` whose messages speak of `strawberry.Maybe` throughout, with branches like
`UnsupportedFieldOverrideError.__init__`'s, replaced the latter: 23 lost lines).  Then it is refused,
asking for the class line; shown with its class, it merges."""
from __future__ import annotations

from redraft.engine.apply import merge

OVERRIDE = ["class UnsupportedFieldOverrideError(StrawberryException):", "    def __init__(", "        self,",
            "        field_name: str,", "        cls: type,", "        *,",
            '        overridden: Literal["model_field", "resolver_field"],', "    ) -> None:",
            "        self.cls = cls", "        self.field_name = field_name", "",
            '        if overridden == "model_field":', "            template = (",
            '                "The resolver of `{field}` on `{cls}` overrides a model field"', "            )",
            '            self.suggestion = "Rename the resolver, or remove the model field."', "        else:",
            "            template = (", '                "`{field}` on `{cls}` overrides an inherited field"',
            "            )", '            self.suggestion = "Decorate the method with `@field`."', "",
            "        self.message = template.format(field=field_name, cls=cls.__name__)",
            "        super().__init__(self.message)"]
MAYBE = ["class MaybeFieldError(StrawberryException):", "    def __init__(self, field_name: str, cls: type) -> None:",
         "        self.cls = cls", "        self.field_name = field_name", "",
         '        self.message = f"Field `{field_name}` on `{cls.__name__}` can\'t use `strawberry.Maybe`"',
         '        self.suggestion = "Use a regular input with `strawberry.Maybe`."',
         "        super().__init__(self.message)"]
def _branch(key: str, first: bool, says: str) -> list[str]:
    return [f'        {"if" if first else "elif"} reason == "{key}":', "            template = (",
            f'                "Field `{{field}}` on `{{cls}}` {says} `strawberry.Maybe`"', "            )",
            f'            self.annotation_message = "strawberry.Maybe field: {key}"',
            f'            self.suggestion = "A `strawberry.Maybe` {key} {says}; move it inside the `Maybe`."']


NEW = ["    def __init__(", "        self,", "        field_name: str,", "        cls: type,", "        *,",
       '        reason: Literal["default", "metadata", "validator", "validate_default"],', "    ) -> None:",
       "        self.cls = cls", "        self.field_name = field_name", ""] + \
    _branch("default", True, "can't use a default with") + _branch("metadata", False, "has metadata outside its") + \
    _branch("validator", False, "has a validator outside its") + \
    _branch("validate_default", False, "validates the default of its") + \
    ["", "        self.message = template.format(field=field_name, cls=cls.__name__)",
     "        super().__init__(self.message)"]


def _file(maybe: list[str]) -> str:
    return "\n".join(["from strawberry.exceptions import StrawberryException", "", ""] + maybe + ["", ""] + OVERRIDE) + "\n"


def test_a_method_naming_another_class_is_not_taken_for_the_likest():
    r = merge(_file(MAYBE), "\n".join(NEW) + "\n", "python")
    assert not r.ok, "merged into the likest class, though the snippet speaks of the other one"
    assert "matches more than one place" in r.reason and "show the line that opens its class" in r.reason


def test_shown_with_its_class_it_merges():
    r = merge(_file(MAYBE), "\n".join([MAYBE[0]] + NEW) + "\n", "python")
    assert r.ok, r.reason
    assert r.text == _file([MAYBE[0]] + NEW)
