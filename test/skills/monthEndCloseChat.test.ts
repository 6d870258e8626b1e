/**
 * The month-end close through POST /chat with the offline model: a check saved in words runs
 * at once, "which checks broke?" lists it, and its history is shown by naming its sources.
 */
import { describe, expect, it } from 'vitest';
import { offlineChat } from '../support/offlineChat.ts';

const { ask } = offlineChat();

describe('the close in words', () => {
  it('saves a check on the 3rd working day, lists it among the broken ones, and shows its history', async () => {
    const [saved, broke, history] = await ask(
      'Save a monthly check of FI against BPC for company 1000 in December 2024 on the 3rd working day',
      'Which checks broke this month?',
      'Show the history of the FI vs BPC check for 1000',
    );
    expect(saved).toMatch(/^Saved the check "fi_reporting vs bpc_reporting company 1000", monthly on the 3rd working day at 06:00 \(UTC\)\. fi_reporting vs bpc_reporting company 1000: breaks\. 2024-12: breaks, difference EUR 110,000\.00/);
    expect(broke).toMatch(/^- fi_reporting vs bpc_reporting company 1000: break, difference 2024-12 EUR 110,000\.00, 1 open \(oldest 0 days\)$/);
    expect(history).toMatch(/^fi_reporting vs bpc_reporting company 1000: 1 run, the latest breaks on \d{4}-\d{2}-\d{2}; 1 open difference\.\n- \d{4}-\d{2}-\d{2}: break\nOpen: company 1000, December 2024: 110,000\.00 EUR open since the \w+ run, 0 days\.$/);
  });
});
