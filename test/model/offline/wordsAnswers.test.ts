/**
 * What a user of the offline model sees of its words, through POST /chat of a real service:
 * the first question people type lists the sources, a typo of an intent word is corrected and
 * said, a word that may be a name is said to be unused, a meaning-changing word no form
 * answers is asked back by name, and follow-ups that point back ("that") or open with "and"
 * keep what the question before them named. Figures are data/README.md's.
 */
import { describe, expect, it } from 'vitest';
import { offlineChat } from '../../support/offlineChat.ts';

const { ask } = offlineChat();

const amounts = (text: string | undefined) => text?.match(/-?\d{1,3}(?:,\d{3})*\.\d{2}/g) ?? [];

describe('the offline model reads ordinary words', () => {
  it('lists the sources for "Which data sources can I ask about?"', async () => {
    const [answer] = await ask('Which data sources can I ask about?');
    for (const source of ['fi_reporting', 'consolidation_mart', 'bpc_reporting', 'fi_acquisition']) expect(answer).toContain(source);
  });

  it('corrects a misspelt intent word and says how it read it', async () => {
    const [answer] = await ask('fi_reporting totl for company 3000 in 12/2024');
    expect(answer).toContain("(I read 'totl' as 'total'.)");
    expect(answer).toContain('129,900.00');
  });

  it('answers around an ordinary word written like a name, and says it did not use it', async () => {
    const [answer] = await ask('fi_reporting total for company 3000 at Harbour in 12/2024');
    expect(answer).toContain("I did not use 'Harbour'");
    expect(answer).toContain('129,900.00');
  });

  it('asks back a meaning-changing word no form answers, naming it, with no figure', async () => {
    const [answer] = await ask('fi_reporting total for company 1000 in December 2024 above 1000');
    expect(answer).toContain("'above'");
    expect(amounts(answer)).toEqual([]);
  });

  it('still asks back a name it cannot place', async () => {
    const [answer] = await ask('fi_reporting total for Fabrikam in December 2024');
    expect(answer).toContain("'Fabrikam'");
    expect(amounts(answer)).toEqual([]);
  });
});

describe('follow-ups keep what the question before named', () => {
  it('"how far is that from budget?" compares the forecast just given with the budget', async () => {
    const [forecast, variance] = await ask('Full-year forecast of company 1000 in the consolidation mart', 'how far is that from budget?');
    expect(forecast).toContain('3,228,500.00');
    expect(variance).toContain('3,228,500.00');
    expect(variance).toContain('3,480,000.00');
    expect(variance).toContain('251,500.00');
  });

  it('"and between the mart and BPC in group currency?" keeps the company and period', async () => {
    const [, groupCurrency] = await ask('fi_reporting vs bpc_reporting for company 3000 in October 2024', 'and between the mart and BPC in group currency?');
    expect(groupCurrency).toContain('29,685.00');
  });

  it('"break that down" with nothing before asks what "that" is', async () => {
    const [answer] = await ask('break that down per profit centre');
    expect(amounts(answer)).toEqual([]);
    expect(answer).toContain('no earlier question');
  });
});
