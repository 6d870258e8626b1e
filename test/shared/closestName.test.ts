/**
 * "Did you mean …" for business names: a name is pointed to only when it misspells one word for
 * word, never because it shares a word with the only name there is ("Contoso XX" is nobody).
 */
import { describe, expect, it } from 'vitest';
import { closestMatch, closestName } from '../../src/shared/closestMatch.ts';

const companies = ['Contoso Deutschland GmbH', 'Contoso Germany', 'Contoso DE', 'Contoso Inc.', 'Contoso UK'];

describe('closestName', () => {
  it('points a misspelt name to the name it misspells', () => {
    expect(closestName('Contoso Germny', companies)).toBe('Contoso Germany');
    expect(closestName('contoso deutschlnd gmbh', companies)).toBe('Contoso Deutschland GmbH');
    expect(closestName('Contoso Inc', companies)).toBe('Contoso Inc.');
  });

  it('points nothing when only a shared word is close, however few names there are', () => {
    expect(closestName('Contoso XX', companies)).toBeUndefined();
    expect(closestName('Contoso XX', ['Contoso DE'])).toBeUndefined();
    expect(closestName('Contoso', ['Contoso Deutschland GmbH'])).toBeUndefined();
    expect(closestName('Contoso Italy', ['Contoso Germany'])).toBeUndefined();
    // closestMatch, for identifiers, still takes a fragment as a hint ("fi" → "fi_reporting").
    expect(closestMatch('Contoso XX', ['Contoso DE'])).toBe('Contoso DE');
  });
});
