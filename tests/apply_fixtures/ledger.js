// A double-entry ledger kept in memory: accounts, journal entries, balances and a trial balance.
// Test fixture for the apply-edit merge (an ES module); it is not run by the tests.

import { createHash } from "node:crypto";
import { EventEmitter } from "node:events";

export const DEFAULT_CURRENCY = "EUR";
const CENTS = 100n;

/**
 * The five kinds of account; debit-normal kinds grow with debits.
 * @type {Record<string, {debitNormal: boolean}>}
 */
export const ACCOUNT_KINDS = Object.freeze({
  asset: { debitNormal: true },
  expense: { debitNormal: true },
  liability: { debitNormal: false },
  equity: { debitNormal: false },
  income: { debitNormal: false },
});

/**
 * Parse an amount such as "12.30" or "-4" into integer cents.
 * @param {string|number} text
 * @returns {bigint}
 */
export const toCents = (text) => {
  const s = String(text).trim();
  const match = /^(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(s);
  if (!match) {
    throw new RangeError(`not an amount: ${s}`);
  }
  const [, sign, whole, frac = ""] = match;
  const cents = BigInt(whole) * CENTS + BigInt(frac.padEnd(2, "0"));
  return sign ? -cents : cents;
};

/**
 * Format integer cents as "1234.50".
 * @param {bigint} cents
 * @returns {string}
 */
export const formatCents = (cents) => {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  const whole = abs / CENTS;
  const frac = (abs % CENTS).toString().padStart(2, "0");
  return `${negative ? "-" : ""}${whole}.${frac}`;
};

const sumCents = (values) => values.reduce((acc, v) => acc + v, 0n);

/** An error in a journal entry (unbalanced, unknown account, closed period). */
export class LedgerError extends Error {
  constructor(message, entryId) {
    super(message);
    this.name = "LedgerError";
    this.entryId = entryId;
  }
}

/**
 * A ledger: a chart of accounts and an append-only journal.
 * Emits "posted" with each entry that is posted.
 */
export class Ledger extends EventEmitter {
  /**
   * @param {string} name
   * @param {{currency?: string, closedBefore?: string}} [options]
   */
  constructor(name, options = {}) {
    super();
    this.name = name;
    this.currency = options.currency ?? DEFAULT_CURRENCY;
    this.closedBefore = options.closedBefore ?? null;
    this.accounts = new Map();
    this.journal = [];
    this.nextId = 1;
  }

  /**
   * Open an account.
   * @param {string} code
   * @param {string} kind one of ACCOUNT_KINDS
   * @param {string} [title]
   */
  openAccount(code, kind, title = code) {
    if (!(kind in ACCOUNT_KINDS)) {
      throw new LedgerError(`unknown account kind ${kind}`);
    }
    if (this.accounts.has(code)) {
      throw new LedgerError(`account ${code} exists`);
    }
    this.accounts.set(code, { code, kind, title, balance: 0n });
    return this.accounts.get(code);
  }

  hasAccount(code) {
    return this.accounts.has(code);
  }

  /**
   * Post a balanced entry.
   * @param {string} date ISO date
   * @param {string} memo
   * @param {Array<{account: string, debit?: string, credit?: string}>} lines
   * @returns {number} the entry id
   */
  post(date, memo, lines) {
    const id = this.nextId;
    if (this.closedBefore && date < this.closedBefore) {
      throw new LedgerError(`period before ${this.closedBefore} is closed`, id);
    }
    const parsed = lines.map((line) => this.parseLine(line, id));
    const debits = sumCents(parsed.map((l) => l.debit));
    const credits = sumCents(parsed.map((l) => l.credit));
    if (debits !== credits) {
      throw new LedgerError(`unbalanced: ${formatCents(debits)} != ${formatCents(credits)}`, id);
    }
    for (const l of parsed) {
      const account = this.accounts.get(l.account);
      const sign = ACCOUNT_KINDS[account.kind].debitNormal ? 1n : -1n;
      account.balance += sign * (l.debit - l.credit);
    }
    const entry = { id, date, memo, lines: parsed };
    this.journal.push(entry);
    this.nextId += 1;
    this.emit("posted", entry);
    return id;
  }

  parseLine(line, id) {
    if (!this.accounts.has(line.account)) {
      throw new LedgerError(`unknown account ${line.account}`, id);
    }
    const debit = line.debit ? toCents(line.debit) : 0n;
    const credit = line.credit ? toCents(line.credit) : 0n;
    if (debit < 0n || credit < 0n) {
      throw new LedgerError("amounts must not be negative", id);
    }
    return { account: line.account, debit, credit };
  }

  /**
   * Reverse an entry with a new one dated `date`.
   * @returns {number} the id of the reversing entry
   */
  reverse(id, date) {
    const entry = this.journal.find((e) => e.id === id);
    if (!entry) {
      throw new LedgerError(`no entry ${id}`);
    }
    const lines = entry.lines.map((l) => ({
      account: l.account,
      debit: formatCents(l.credit),
      credit: formatCents(l.debit),
    }));
    return this.post(date, `reversal of #${id}`, lines);
  }

  balance(code) {
    const account = this.accounts.get(code);
    return account ? formatCents(account.balance) : null;
  }

  /** Rows of [code, title, debit, credit] and the two totals. */
  trialBalance() {
    const rows = [];
    let debit = 0n;
    let credit = 0n;
    for (const account of [...this.accounts.values()].sort((a, b) => a.code.localeCompare(b.code))) {
      const normal = ACCOUNT_KINDS[account.kind].debitNormal;
      const dr = normal === account.balance >= 0n ? (account.balance < 0n ? -account.balance : account.balance) : 0n;
      const cr = dr === 0n ? (account.balance < 0n ? -account.balance : account.balance) : 0n;
      debit += dr;
      credit += cr;
      rows.push([account.code, account.title, formatCents(dr), formatCents(cr)]);
    }
    return { rows, debit: formatCents(debit), credit: formatCents(credit) };
  }

  *entriesBetween(from, to) {
    for (const entry of this.journal) {
      if (entry.date >= from && entry.date <= to) {
        yield entry;
      }
    }
  }

  static fromJSON(json) {
    const data = typeof json === "string" ? JSON.parse(json) : json;
    const ledger = new Ledger(data.name, { currency: data.currency });
    for (const a of data.accounts) {
      ledger.openAccount(a.code, a.kind, a.title);
    }
    for (const e of data.journal) {
      ledger.post(e.date, e.memo, e.lines);
    }
    return ledger;
  }
}

/**
 * A stable fingerprint of a journal, to detect edits to posted entries.
 * @param {Ledger} ledger
 * @returns {string} hex digest
 */
export function fingerprint(ledger) {
  const hash = createHash("sha256");
  for (const entry of ledger.journal) {
    hash.update(`${entry.id}|${entry.date}|${entry.memo}\n`);
    for (const l of entry.lines) {
      hash.update(`${l.account}:${l.debit}:${l.credit}\n`);
    }
  }
  return hash.digest("hex");
}

/**
 * Close a period: income and expense balances move to retained earnings.
 * @param {Ledger} ledger
 * @param {string} date
 * @param {string} [equityAccount]
 */
export function closePeriod(ledger, date, equityAccount = "3900") {
  const lines = [];
  let net = 0n;
  for (const account of ledger.accounts.values()) {
    if (account.kind !== "income" && account.kind !== "expense") {
      continue;
    }
    if (account.balance === 0n) {
      continue;
    }
    const amount = formatCents(account.balance < 0n ? -account.balance : account.balance);
    if (account.kind === "income") {
      lines.push({ account: account.code, debit: amount });
      net += account.balance;
    } else {
      lines.push({ account: account.code, credit: amount });
      net -= account.balance;
    }
  }
  if (net >= 0n) {
    lines.push({ account: equityAccount, credit: formatCents(net) });
  } else {
    lines.push({ account: equityAccount, debit: formatCents(-net) });
  }
  const id = ledger.post(date, "period close", lines);
  ledger.closedBefore = date;
  return id;
}

export default Ledger;
