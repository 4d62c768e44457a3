"""Issue 43: a fragment that adds a definition whose last lines happen to be the last lines of a later
definition in the file.  The shape, from a real release (tabulate's test_output.py): after the end
of `test_simple`, two new tests, the second ending with `result = tabulate(table, tablefmt=
"simple")` and `assert_equal(expected, result)`, which a test 110 lines further on ends with too.

A region framed by the fragment's own first and last lines at both ends, with words, is taken as
a hunk is, deleting what lies between explicitly.  Here the last frame was new code found elsewhere
by chance, so the merge deleted seven tests (87 lost lines, silently).  When a marker follows the
fragment and its last lines with words lie in a definition it adds, no frame counts (anchors._best,
`new`): the region is scored with the others, the new definition goes after the shown lines and
nothing is deleted.  (On 1bc95cf every language
deleted the definitions between.)"""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

# (file, snippet, the new definition) per language: the snippet shows the first definition's last
# lines, then the new one, whose last lines are the third definition's
LANGS = {
    "python": ('''def test_one():
    table = [1]
    result = tabulate(table, fmt="plain")
    assert_equal(expected, result)


def test_two():
    table = [2]
    expected = "two"
    result = tabulate(table, fmt="grid")
    assert_equal(expected, result)


def test_three():
    table = [3]
    expected = render(table)
    result = tabulate(table, fmt="simple")
    assert_equal(expected, result)
''', "# ... existing code ...", '''

def test_new():
    table = [4]
    expected = render(table)
    result = tabulate(table, fmt="simple")
    assert_equal(expected, result)'''),
    "javascript": ('''function testOne() {
  const table = [1]
  const result = tabulate(table, "plain")
  assertEqual(expected, result)
}

function testTwo() {
  const table = [2]
  const expected = "two"
  const result = tabulate(table, "grid")
  assertEqual(expected, result)
}

function testThree() {
  const table = [3]
  const expected = render(table)
  const result = tabulate(table, "simple")
  assertEqual(expected, result)
}
''', "// ... existing code ...", '''
function testNew() {
  const table = [4]
  const expected = render(table)
  const result = tabulate(table, "simple")
  assertEqual(expected, result)
}'''),
    "typescript": ('''function testOne(): void {
  const table: number[] = [1]
  const result: string = tabulate(table, "plain")
  assertEqual(expected, result)
}

function testTwo(): void {
  const table: number[] = [2]
  const expected: string = "two"
  const result: string = tabulate(table, "grid")
  assertEqual(expected, result)
}

function testThree(): void {
  const table: number[] = [3]
  const expected: string = render(table)
  const result: string = tabulate(table, "simple")
  assertEqual(expected, result)
}
''', "// ... existing code ...", '''
function testNew(): void {
  const table: number[] = [4]
  const expected: string = render(table)
  const result: string = tabulate(table, "simple")
  assertEqual(expected, result)
}'''),
    "rust": ('''fn test_one() {
    let table = vec![1];
    let result = tabulate(&table, "plain");
    assert_eq!(expected, result);
}

fn test_two() {
    let table = vec![2];
    let expected = "two";
    let result = tabulate(&table, "grid");
    assert_eq!(expected, result);
}

fn test_three() {
    let table = vec![3];
    let expected = render(&table);
    let result = tabulate(&table, "simple");
    assert_eq!(expected, result);
}
''', "// ... existing code ...", '''
fn test_new() {
    let table = vec![4];
    let expected = render(&table);
    let result = tabulate(&table, "simple");
    assert_eq!(expected, result);
}'''),
    "go": ('''package output

func TestOne(t *testing.T) {
	table := []int{1}
	result := tabulate(table, "plain")
	assertEqual(t, expected, result)
}

func TestTwo(t *testing.T) {
	table := []int{2}
	expected := "two"
	result := tabulate(table, "grid")
	assertEqual(t, expected, result)
}

func TestThree(t *testing.T) {
	table := []int{3}
	expected := render(table)
	result := tabulate(table, "simple")
	assertEqual(t, expected, result)
}
''', "// ... existing code ...", '''
func TestNew(t *testing.T) {
	table := []int{4}
	expected := render(table)
	result := tabulate(table, "simple")
	assertEqual(t, expected, result)
}'''),
}


@pytest.mark.parametrize("lang", sorted(LANGS))
def test_a_new_definitions_last_lines_found_further_on_delete_nothing(lang):
    original, marker, new = LANGS[lang]
    lines = original.splitlines()
    head = next(i for i, l in enumerate(lines) if "One" in l or "one" in l)
    end = next(i for i in range(head, len(lines)) if lines[i] == "}" or not lines[i].strip())
    end -= not lines[end].strip()
    shown = lines[head + 1:end + 1]           # the first definition's body (and its closing line)
    snippet = "\n".join([marker] + shown + new.splitlines() + [marker]) + "\n"
    r = merge(original, snippet, lang)
    assert r.ok, r.reason
    want = "\n".join(lines[:end + 1] + new.splitlines() + lines[end + 1:]) + "\n"
    assert r.text == want and not r.deletions
