import { describe, expect, it } from 'vitest';
import { HANDOFF_PROTOCOL, parseCompletion, systemPrompt } from './handoff-protocol';

describe('parseCompletion', () => {
  it('returns a plain answer as the content', () => {
    expect(parseCompletion('  Our plans start at $10.  ')).toEqual({ content: 'Our plans start at $10.', handoff: null });
  });

  it('reads the exact handoff line', () => {
    expect(parseCompletion('HANDOFF: wants a refund | Customer paid twice for March and asks for a refund.')).toEqual({
      content: '',
      handoff: { reason: 'wants a refund', summary: 'Customer paid twice for March and asks for a refund.' },
    });
  });

  it('tolerates case, markdown, a missing summary and text around the line', () => {
    expect(parseCompletion('**Handoff**: angry customer')).toEqual({ content: '', handoff: { reason: 'angry customer', summary: '' } });
    expect(parseCompletion('I will get a colleague.\nhandoff: | asked twice for a manager')).toEqual({
      content: 'I will get a colleague.',
      handoff: { reason: 'The model asked for a person.', summary: 'asked twice for a manager' },
    });
  });

  it('does not take a mention of the word for the marker', () => {
    expect(parseCompletion('A handoff to a colleague is possible: just ask.').handoff).toBeNull();
  });
});

describe('systemPrompt', () => {
  it('puts the instructions, the name when known, then the protocol', () => {
    expect(systemPrompt(' Be brief. ', ' Ana ')).toBe(`Be brief.\n\nThe contact's name is Ana.\n\n${HANDOFF_PROTOCOL}`);
    expect(systemPrompt('Be brief.', null)).toBe(`Be brief.\n\n${HANDOFF_PROTOCOL}`);
    expect(HANDOFF_PROTOCOL).toContain('HANDOFF: <the reason');
  });
});
