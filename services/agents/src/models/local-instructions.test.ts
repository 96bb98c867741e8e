import { describe, expect, it } from 'vitest';
import { firstMatch, keywordsOf, parseInstructions } from './local-instructions';

describe('parseInstructions', () => {
  it('reads every directive and leaves persona text out', () => {
    const rules = parseInstructions(
      [
        'You are Ana, the friendly assistant of Acme.',
        'When the customer mentions price, prices, cost: Our plans start at $10/month: see acme.test/pricing.',
        '- When they ask about opening hours: We are open 9:00-18:00.',
        '* when refund: Refunds take 5 days.',
        'Greeting: Hi {first_name}! How can I help?',
        'Fallback: A colleague will answer soon.',
        'Handoff when: human, agent, person, complaint',
        'Handoff reply: One moment, I am getting a colleague.',
        'Simulate failure when boom: The model exploded.',
        'When in doubt, be kind.',
      ].join('\n'),
    );
    expect(rules.answers.map((rule) => [rule.keywords.map((k) => k.phrase), rule.answer])).toEqual([
      [['price', 'prices', 'cost'], 'Our plans start at $10/month: see acme.test/pricing.'],
      [['opening hours'], 'We are open 9:00-18:00.'],
      [['refund'], 'Refunds take 5 days.'],
    ]);
    expect(rules.greeting).toBe('Hi {first_name}! How can I help?');
    expect(rules.fallback).toBe('A colleague will answer soon.');
    expect(rules.handoffKeywords.map((k) => k.phrase)).toEqual(['human', 'agent', 'person', 'complaint']);
    expect(rules.handoffReply).toBe('One moment, I am getting a colleague.');
    expect(rules.failures).toEqual([{ keywords: [expect.objectContaining({ phrase: 'boom' })], message: 'The model exploded.' }]);
  });

  it('accepts the documented filler words and any case', () => {
    for (const line of [
      'When the contact says hello: A',
      'WHEN SOMEONE WRITES hello: A',
      'when the client asks for hello: A',
      'When asked about hello: A',
      'When user talks about hello: A',
      'When hello: A',
    ]) {
      expect(
        parseInstructions(line).answers[0]?.keywords.map((k) => k.phrase),
        line,
      ).toEqual(['hello']);
    }
    expect(parseInstructions('handoff WHEN the customer mentions manager, boss').handoffKeywords.map((k) => k.phrase)).toEqual([
      'manager',
      'boss',
    ]);
  });

  it('keeps the first greeting and fallback, joins handoff lines, ignores empty directives', () => {
    const rules = parseInstructions(
      ['Greeting: one', 'Greeting: two', 'Fallback:', 'Fallback: F', 'Handoff when: a', 'Handoff when: b', 'When : x', 'When price:'].join(
        '\r\n',
      ),
    );
    expect(rules.greeting).toBe('one');
    expect(rules.fallback).toBe('F');
    expect(rules.handoffKeywords.map((k) => k.phrase)).toEqual(['a', 'b']);
    expect(rules.answers).toEqual([]);
  });

  it('gives an unconditional failure a default message', () => {
    expect(parseInstructions('Simulate failure:').failures).toEqual([{ keywords: null, message: 'Simulated model failure' }]);
  });
});

describe('keyword matching', () => {
  const match = (list: string, text: string): string | null => firstMatch(keywordsOf(list), text)?.phrase ?? null;

  it('matches whole words and phrases, case-insensitively', () => {
    expect(match('price', 'What is the PRICE?')).toBe('price');
    expect(match('price', 'This is priceless')).toBeNull();
    expect(match('opening hours', 'your opening\n  hours please')).toBe('opening hours');
    expect(match('opening hours', 'opening soon, hours later')).toBeNull();
  });

  it('handles accents, quotes and regex characters literally', () => {
    expect(match('preço', 'Qual o Preço?')).toBe('preço');
    expect(match('"c++"', 'do you teach c++?')).toBe('c++');
    expect(match('a.b', 'axb')).toBeNull();
  });

  it('returns the first keyword of the list that matches', () => {
    expect(match('cost, price', 'price and cost')).toBe('cost');
  });
});
