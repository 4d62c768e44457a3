"""Issue 43: a snippet whose indentation steps differ from the file's most common step is not
refused when the file itself steps that way too (a formatter's deeper step inside conditional types
and ternaries: abitype's utils.ts and structs.ts, indented by 2 with steps of 4 after `? {`).

Before, the snippet's most common step (4) was compared with the file's (2), and the snippet was
refused ("indents by 4 spaces but the file by 2") unless its lines were the file's own, which a
release that renames every type parameter's lines are not.  Now it is refused only when the file
steps by the snippet's unit in fewer than one step in five: a snippet written in another unit."""
from __future__ import annotations

import pytest

from redraft.engine.apply import merge

CASES = {
    "typescript": ('''export type Pretty<T> = {
  [K in keyof T]: T[K]
} & unknown

type ToParams<
  TParams extends readonly Param[],
  TData extends Data,
> = {
  [K in keyof TParams]: TParams[K] extends infer TParam extends
    {
      name: string
      type: unknown
    }
    ? TParam['type'] extends keyof TData & string
      ? {
          name: TParam['name']
          type: 'tuple'
        }
      : TParam
    : never
}

export function toParams(data: Data): Param[] {
  return Object.values(data)
}
''', '''type ToParams<
  params extends readonly Param[],
  data extends Data,
> = {
  [key in keyof params]: params[key] extends infer param extends { name: string; type: unknown }
    ? param['type'] extends keyof data & string
      ? {
          name: param['name']
          type: `tuple`
          components: ToParams<data[param['type']], data>
        }
      : param['type'] extends `${infer kind extends keyof data & string}[]`
        ? {
            name: param['name']
            type: 'tuple[]'
            components: ToParams<data[kind], data>
          }
        : param
    : never
}
''', "type ToParams<", "\nexport function"),
    "javascript": ('''export const pretty = (value) => {
  return value
}

export function toParams(params, data) {
  return params.map((param) =>
    param.type in data
      ? {
          name: param.name,
          type: 'tuple',
        }
      : param,
  )
}

export const count = (data) => Object.keys(data).length
''', '''export function toParams(parameters, data) {
  return parameters.map((parameter) =>
    parameter.type in data
      ? {
          name: parameter.name,
          type: `tuple`,
          components: toParams(data[parameter.type], data),
        }
      : parameter.type.endsWith('[]')
        ? {
            name: parameter.name,
            type: 'tuple[]',
          }
        : parameter,
  )
}
''', "export function toParams", "\nexport const count"),
}


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_file_that_steps_by_the_snippets_unit_too_takes_the_snippet_as_written(lang):
    text, new, start, end = CASES[lang]
    res = merge(text, new, lang)
    assert res.ok, res.reason
    assert res.text == text[:text.index(start)] + new + text[text.index(end):]


@pytest.mark.parametrize("lang", sorted(CASES))
def test_a_file_that_never_steps_by_the_snippets_unit_still_refuses_it(lang):
    text, new, _, _ = CASES[lang]
    lines = text.splitlines()
    opened = next(i for i, l in enumerate(lines) if l.strip() == "? {")
    closed = next(i for i in range(opened, len(lines)) if lines[i].strip() == "}")
    flat = lines[:opened + 1] + [l[2:] for l in lines[opened + 1:closed]] + lines[closed:]   # (steps of 2 only)
    res = merge("\n".join(flat) + "\n", new, lang)
    assert not res.ok
    assert "indents by 4 spaces but the file by 2" in res.reason
