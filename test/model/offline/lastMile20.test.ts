/**
 * The last mile of issue 20, as a user of the offline model sees it through POST /chat of a
 * real service: a conversion asked of the figure before ("what is that in EUR?") is a one-off
 * view, so the next follow-up answers in the source's own measure again. Every expected figure
 * is computed here by SQL on data/sample.db.
 */
import { describe, expect, it } from 'vitest';
import { offlineChat } from '../../support/offlineChat.ts';

const { ask, rows, money } = offlineChat();

describe('a conversion of the figure before is a one-off view', () => {
  it('answers the next follow-up in the source own measure, not in the converted one', async () => {
    const [manual] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS lc, ROUND(SUM(cs_trn_gc), 2) AS gc FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL'");
    const [account] = rows("SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS lc, MIN(curkey_lc) AS currency FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL' GROUP BY grpacct");
    const [first, converted, next] = await ask('manual adjustments in BPC, actuals', 'what is that in group currency?', 'which account was it booked on?');
    expect(first).toContain(money(manual!.lc));
    expect(converted).toContain(money(manual!.gc));
    expect(next).toContain(`${account!.grpacct}: ${money(account!.lc)} ${account!.currency}`);
    expect(next).not.toContain(money(manual!.gc));
  });

  it('keeps a measure the conversation itself chose before the conversion', async () => {
    const [gc] = rows("SELECT grpacct, ROUND(SUM(cs_trn_gc), 2) AS gc FROM bpc_reporting WHERE version = 'ACTUAL' AND audittrail = 'ADJ_MANUAL' GROUP BY grpacct");
    const [, , next] = await ask('manual adjustments in BPC in group currency, actuals', 'how big is that in EUR?', 'split it by group account');
    expect(next).toContain(`${gc!.grpacct}: ${money(gc!.gc)} EUR`);
  });
});

describe('expense accounts, as the catalog labels them', () => {
  // data/README.md: G5000000, G5100000, G6000000, G6100000 and G7000000 are the expense accounts.
  const expenses = "('G5000000', 'G5100000', 'G6000000', 'G6100000', 'G7000000')";

  it('ranks the expense accounts by size for "top 3 expense accounts for <company>" (not a why-question)', async () => {
    const top = rows(`SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '2000' AND grpacct IN ${expenses} GROUP BY grpacct ORDER BY ABS(SUM(cs_trn_lc)) DESC LIMIT 3`);
    const [answer] = await ask('top 3 expense accounts for company 2000 in fi_reporting');
    const listed = answer.split('\n').filter((line) => top.some((row) => line.includes(row.grpacct)));
    expect(listed.length).toBeGreaterThanOrEqual(1);
    for (const row of top) expect(answer).toContain(`${row.grpacct}`);
    expect(answer.indexOf(top[0]!.grpacct)).toBeLessThan(answer.indexOf(top[1]!.grpacct));
    expect(answer).toContain(money(top[0]!.amount));
    expect(answer).not.toMatch(/need something to hold it against/);
  });

  it('names the largest expense line of a company in a month', async () => {
    const [largest] = rows(`SELECT grpacct, ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '1000' AND fiscper = '2024003' AND grpacct IN ${expenses} GROUP BY grpacct ORDER BY ABS(SUM(cs_trn_lc)) DESC LIMIT 1`);
    const [answer] = await ask('which was the biggest expense line of company 1000 in March 2024 in fi_reporting?');
    expect(answer.split('\n')[0]).toContain(`${largest!.grpacct}`);
    expect(answer.split('\n')[0]).toContain(money(largest!.amount));
  });

  it('still reads "what accounts for the gap" as a why-question', async () => {
    const [answer] = await ask('what accounts for the gap between fi_reporting and bpc_reporting for company 3000 in October 2024?');
    expect(answer).toMatch(/G6100000/);
  });
});

describe('a measure a source does not have', () => {
  it('names the sources that have it', async () => {
    const [answer] = await ask('quantity sold by company 2000 in March 2024 in bpc_reporting');
    expect(answer).toContain('bpc_reporting has no measure quantity');
    expect(answer).toMatch(/quantity is in fi_reporting and fi_acquisition/);
  });
});

describe('a question about a convention, not about figures', () => {
  it('searches the knowledge instead of summing the accounts it names', async () => {
    const [answer] = await ask('What is the sign convention for expenses?');
    expect(answer).toMatch(/negative/i);
    expect(answer).not.toMatch(/per currency/);
  });
});

describe('values left out', () => {
  it('answers a total excluding a value as the total without it, stating both', async () => {
    const [all] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '2000' AND fiscper = '2024006'");
    const [kept] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '2000' AND fiscper = '2024006' AND grpacct NOT IN ('G4100000', 'G5100000')");
    const [answer] = await ask('result of company 2000 in June 2024 in the consolidation mart, excluding intercompany');
    expect(answer).toContain(`: ${money(kept!.amount)} USD`);
    expect(answer).toContain(`all group account values: ${money(all!.amount)} USD`);
  });

  it('leaves a value out after "without" while "without a profit centre" still checks blanks', async () => {
    const [kept] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM bpc_reporting WHERE version = 'ACTUAL' AND compcode = '3000' AND fiscper = '2024010' AND audittrail <> 'ADJ_MANUAL'");
    const [without, blanks] = await ask('bpc_reporting for company 3000 in October 2024 without the top-side adjustments', 'How much revenue in fi_reporting is posted without a profit centre?');
    expect(without).toContain(money(kept!.amount));
    expect(blanks).toMatch(/blank profit center/);
  });

  it('reads "not counting" a value as leaving it out', async () => {
    const [kept] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM bpc_reporting WHERE version = 'ACTUAL' AND compcode = '3000' AND fiscper BETWEEN '2024010' AND '2024012' AND audittrail <> 'ADJ_MANUAL'");
    const [answer] = await ask('bpc_reporting for company 3000 in Q4 2024, not counting the manual adjustments');
    expect(answer).toContain(`: ${money(kept!.amount)} GBP`);
  });

  it('drops the value from a list the question names ("expenses except depreciation")', async () => {
    const [kept] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '1000' AND fiscper BETWEEN '2024001' AND '2024006' AND grpacct IN ('G5000000', 'G5100000', 'G6000000', 'G6100000')");
    const [answer] = await ask('expenses except depreciation for company 1000 in H1 2024 in the consolidation mart');
    expect(answer).toContain(money(kept!.amount));
    expect(answer).not.toContain('G7000000');
  });

  it('asks back when the value left out is not in what the question reads', async () => {
    const [answer] = await ask('revenue of company 1000 in the consolidation mart in 2024 excluding depreciation');
    expect(answer).toMatch(/'excluding' leaves out G7000000/);
    expect(answer).not.toMatch(/\d{1,3}(,\d{3})*\.\d{2} EUR/);
  });

  it('asks back rather than rank with the value in', async () => {
    const [answer] = await ask('top 3 accounts for company 1000 in the consolidation mart in 2024 excluding intercompany');
    expect(answer).toMatch(/leaving out G4100000, G5100000/);
    expect(answer).not.toMatch(/\d{1,3}(,\d{3})*\.\d{2} EUR/);
  });
});

describe('halves compared', () => {
  it('reads "from H1 to H2" as the two halves, not their first and last months', async () => {
    const [h1] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '2000' AND fiscper BETWEEN '2024001' AND '2024006'");
    const [h2] = rows("SELECT ROUND(SUM(cs_trn_lc), 2) AS amount FROM fi_reporting WHERE compcode = '2000' AND fiscper BETWEEN '2024007' AND '2024012'");
    const [answer] = await ask('what drove the change in fi_reporting for company 2000 from H1 to H2 2024?');
    expect(answer).toContain(`${money(h1!.amount)} USD → ${money(h2!.amount)} USD`);
  });
});

describe('quarters', () => {
  it('reads "a breakdown of … by quarter" as the quarters, summed from months', async () => {
    const quarters = rows("SELECT (CAST(SUBSTR(fiscper, 5, 3) AS INTEGER) + 2) / 3 AS q, ROUND(SUM(cs_trn_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '2000' AND fiscper BETWEEN '2024001' AND '2024012' GROUP BY q ORDER BY q");
    const [answer] = await ask('a breakdown of the 2024 result of company 2000 by quarter from the consolidation mart');
    for (const row of quarters) expect(answer).toContain(`Q${row.q} 2024: ${money(row.amount)} USD`);
  });

  it('shows a year-to-date balance at each quarter end, never summed over the months', async () => {
    const ends = rows("SELECT fiscper, ROUND(SUM(cs_ytd_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '1000' AND grpacct = 'G4000000' AND fiscper IN ('2024003', '2024006', '2024009', '2024012') GROUP BY fiscper ORDER BY fiscper");
    const [summed] = rows("SELECT ROUND(SUM(cs_ytd_lc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '1000' AND grpacct = 'G4000000' AND fiscper BETWEEN '2024001' AND '2024003'");
    const [answer, ranked] = await ask('year-to-date revenue of company 1000 in the consolidation mart in 2024 by quarter', 'which quarter had the highest ytd revenue for company 1000 in the consolidation mart?');
    for (const row of ends) expect(answer).toContain(`(${row.fiscper}): ${money(row.amount)} EUR`);
    expect(answer).not.toContain(money(summed!.amount));
    const [everyQuarter] = await ask('ytd revenue of company 1000 in the consolidation mart in every quarter of 2024');
    for (const row of ends) expect(everyQuarter).toContain(`(${row.fiscper}): ${money(row.amount)} EUR`);
    expect(ranked).toMatch(/balance to date/);
    expect(ranked).not.toMatch(/\d{1,3}(,\d{3})*\.\d{2} EUR/);
  });
});

describe('a comparison that names a measure, not the sources', () => {
  it('compares the two sources that hold the measure ("the translation gap")', async () => {
    const [mart] = rows("SELECT ROUND(SUM(cs_trn_gc), 2) AS amount FROM consolidation_mart WHERE version = 'ACTUAL' AND compcode = '3000' AND fiscper = '2024010'");
    const [bpc] = rows("SELECT ROUND(SUM(cs_trn_gc), 2) AS amount FROM bpc_reporting WHERE version = 'ACTUAL' AND compcode = '3000' AND fiscper = '2024010'");
    const [answer] = await ask('how big is the currency translation gap for company 3000 in October 2024?');
    expect(answer).toContain(money(Math.abs(Math.round((mart!.amount - bpc!.amount) * 100) / 100)));
    expect(answer).toContain('consolidation_mart');
    expect(answer).toContain('bpc_reporting');
  });
});
