/**
 * The question forms of issue 20, as a user of the offline model sees them through POST /chat
 * of a real service: rankings and top-N, breakdowns named by a verb, "in every month" and
 * "which month?" answered per period, magnitudes answered with the difference, and "per
 * account" read as a breakdown. Every expected figure is computed here by SQL on data/sample.db.
 */
import { describe, expect, it } from 'vitest';
import { offlineChat } from '../../support/offlineChat.ts';

const { ask, rows, money } = offlineChat();
const amounts = (text: string) => text.match(/-?\d{1,3}(?:,\d{3})*\.\d{2}/g) ?? [];
const monthName = (period: string) => new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(4)) - 1, 1)).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });

describe('rankings and top-N', () => {
  it('names the highest month with its figure', async () => {
    const byMonth = rows("SELECT fiscper, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '1000' AND grpacct = 'G4000000' GROUP BY fiscper ORDER BY amount DESC");
    const [answer] = await ask('Which month had the highest revenue for Contoso Deutschland in fi_reporting?');
    expect(answer.split('\n')[0]).toContain(`${monthName(byMonth[0]!.fiscper)}: ${money(byMonth[0]!.amount)} EUR`);
    expect(answer).toContain(`${byMonth.length} period values ranked`);
  });

  it('lists the top 3 accounts by size, whatever their sign, in order', async () => {
    const top = rows("SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '2000' AND fiscper = '2024012' GROUP BY grpacct ORDER BY ABS(SUM(cs_trn_lc)) DESC LIMIT 3");
    const [answer] = await ask('Top 3 accounts by amount for company 2000 in December 2024 in fi_reporting');
    const listed = answer.split('\n').filter((line) => /^\d\. /.test(line));
    expect(listed).toHaveLength(3);
    top.forEach((row, index) => expect(listed[index]).toContain(`${row.grpacct} `));
    top.forEach((row, index) => expect(listed[index]).toContain(`: ${money(row.amount)} USD`));
    expect(answer).toContain('ranked by size');
  });

  it('ranks companies from the bottom in group currency', async () => {
    const lowest = rows("SELECT compcode, ROUND(SUM(cs_trn_gc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND grpacct = 'G4000000' GROUP BY compcode ORDER BY amount ASC")[0]!;
    const [answer] = await ask('Which company had the lowest revenue in the consolidation mart in group currency?');
    expect(answer.split('\n')[0]).toMatch(new RegExp(`^Lowest company .*: ${lowest.compcode} \\(.*\\): ${money(lowest.amount)} EUR\\.$`));
  });

  it('ranks quarters, summed from the months', async () => {
    const quarters = rows("SELECT (CAST(SUBSTR(fiscper, 5, 3) AS INTEGER) + 2) / 3 AS quarter, ROUND(SUM(cs_trn_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '3000' GROUP BY quarter ORDER BY amount DESC");
    const [answer] = await ask('Which quarter was highest for the Contoso UK Ltd operating result in the mart?');
    expect(answer.split('\n')[0]).toMatch(new RegExp(`^Highest quarter .*: Q${quarters[0]!.quarter} 2024: ${money(quarters[0]!.amount)} GBP\\.$`));
  });

  it('asks back rather than rank amounts of several currencies against each other', async () => {
    const [answer] = await ask('Top 3 accounts in 2024');
    expect(answer).toContain('different currencies');
    expect(answer).toContain('?');
    expect(amounts(answer)).toEqual([]);
  });
});

describe('breakdowns named by a verb', () => {
  it('answers "the segment split" per segment, not with the company total', async () => {
    const segments = rows("SELECT segment, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '3000' AND fiscper = '2024004' GROUP BY segment");
    const total = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '3000' AND fiscper = '2024004'")[0]!.amount;
    const [answer] = await ask('What is the segment split for company 3000 in April?');
    for (const segment of segments) expect(answer).toContain(`- ${segment.segment || '(blank)'}: ${money(segment.amount)} GBP`);
    expect(amounts(answer)).not.toContain(money(total));
  });

  it('reads "per account" as a breakdown, not as a why-question', async () => {
    const accounts = rows("SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '1000' AND fiscper = '2024012' GROUP BY grpacct");
    const [answer] = await ask('Show me the amount per account for company 1000 in December 2024 in fi_reporting');
    expect(answer).not.toContain('something to hold it against');
    for (const account of accounts) expect(answer).toContain(`- ${account.grpacct}: ${money(account.amount)} EUR`);
  });

  it('says which month of a month-by-month answer has no rows', async () => {
    const booked = new Set(rows("SELECT DISTINCT fiscper FROM fi_reporting WHERE compcode = '2000' AND grpacct = 'G5100000'").map((row) => row.fiscper as string));
    const empty = Array.from({ length: 12 }, (_, index) => `2024${String(index + 1).padStart(3, '0')}`).filter((period) => !booked.has(period));
    expect(empty.length).toBeGreaterThan(0);
    const [answer] = await ask('Month by month, what did 2000 book in intercompany purchases?');
    expect(answer).toContain(`No rows in ${empty.map(monthName).join(', ')}.`);
  });
});

describe('monthly averages', () => {
  it('divides the total by the months asked for, months with no rows included', async () => {
    const total = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '3000' AND grpacct = 'G4000000' AND fiscper BETWEEN '2024001' AND '2024012'")[0]!.amount as number;
    const [answer] = await ask('What was the average monthly revenue of Contoso UK in 2024?');
    expect(answer).toContain(`over 12 months (January 2024–December 2024): ${money(Math.round((total / 12) * 100) / 100)} GBP (total ${money(total)} GBP).`);
  });
});

describe('"in every month" and "which month?" answered per period', () => {
  const netByMonth = () => rows("SELECT fiscper, ROUND(SUM(cs_trn_gc), 2) AS net FROM consolidation_mart WHERE version = 'ACTUAL' AND grpacct IN ('G4100000', 'G5100000') GROUP BY fiscper ORDER BY fiscper");

  it('names the only month that does not net to zero, and that every other month does', async () => {
    const off = netByMonth().filter((row) => Math.abs(row.net) >= 0.005);
    expect(off).toHaveLength(1);
    const [answer, followUp] = await ask('Does the intercompany elimination net to zero in every month?', 'which month?');
    const expected = `No: only ${monthName(off[0]!.fiscper)} is off, by ${money(off[0]!.net)} EUR; every other month nets to 0.00 EUR.`;
    expect(answer.split('\n')[0]).toBe(expected);
    expect(followUp.split('\n')[0]).toBe(expected);
  });

  it('answers "which month?" after the annual net with the month, not the annual figure again', async () => {
    const months = netByMonth();
    const annual = months.reduce((sum, row) => sum + row.net, 0);
    const off = months.filter((row) => Math.abs(row.net) >= 0.005);
    const [first, followUp] = await ask('Does the intercompany elimination net to zero?', 'which month?');
    expect(first).toContain(money(annual));
    expect(followUp).toContain(monthName(off[0]!.fiscper));
    expect(followUp).not.toContain('G4100000: ');
  });
});

describe('magnitudes answered with the difference', () => {
  it('puts the size of the gap between two sources first', async () => {
    const fi = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '1000' AND fiscper = '2024012'")[0]!.amount;
    const bpc = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM bpc_reporting WHERE version = 'ACTUAL' AND compcode = '1000' AND fiscper = '2024012'")[0]!.amount;
    const [answer] = await ask('How far apart are FI and BPC for company 1000 in December 2024?');
    const [higher, lower] = fi >= bpc ? ['fi_reporting', 'bpc_reporting'] : ['bpc_reporting', 'fi_reporting'];
    expect(answer.split('\n')[0]).toBe(`${higher} is higher than ${lower} by ${money(Math.abs(fi - bpc))} EUR.`);
  });

  it('answers "how much more in Q2 than in Q1" with the change, never the sum of both quarters', async () => {
    const quarter = (from: string, to: string) => rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '2000' AND grpacct = 'G4000000' AND fiscper BETWEEN ? AND ?", from, to)[0]!.amount as number;
    const [q1, q2] = [quarter('2024001', '2024003'), quarter('2024004', '2024006')];
    const [answer] = await ask('How much more revenue did Contoso Inc. make in Q2 than in Q1?');
    expect(answer).toContain(`change ${q2 - q1 >= 0 ? '+' : ''}${money(q2 - q1)} USD`);
    expect(amounts(answer)).not.toContain(money(q1 + q2));
  });
});
