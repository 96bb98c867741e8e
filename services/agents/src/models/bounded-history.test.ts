import { describe, expect, it } from 'vitest';
import { boundedHistory } from './bounded-history';
import type { ChatTurn } from './model-provider';

const turn = (content: string, role: ChatTurn['role'] = 'user'): ChatTurn => ({ role, content });

describe('boundedHistory', () => {
  it('keeps everything that fits, oldest first', () => {
    const turns = [turn('a'), turn('b', 'assistant'), turn('c')];
    expect(boundedHistory(turns)).toEqual(turns);
    expect(boundedHistory([])).toEqual([]);
  });

  it('keeps the most recent turns within the turn bound (default 20)', () => {
    const turns = Array.from({ length: 30 }, (_, i) => turn(`m${i}`));
    const kept = boundedHistory(turns);
    expect(kept).toHaveLength(20);
    expect(kept[0]?.content).toBe('m10');
    expect(kept.at(-1)?.content).toBe('m29');
    expect(boundedHistory(turns, { maxTurns: 3, maxChars: 8000 }).map((t) => t.content)).toEqual(['m27', 'm28', 'm29']);
  });

  it('keeps the most recent turns within the character bound, contiguously', () => {
    const turns = [turn('x'.repeat(10)), turn('y'.repeat(50)), turn('z'.repeat(30)), turn('w'.repeat(40))];
    const kept = boundedHistory(turns, { maxTurns: 20, maxChars: 80 });
    expect(kept.map((t) => t.content[0])).toEqual(['z', 'w']);
  });

  it('always keeps the last turn, cut to the bound when it alone is longer', () => {
    const kept = boundedHistory([turn('old'), turn('a'.repeat(100))], { maxTurns: 20, maxChars: 40 });
    expect(kept).toEqual([turn('a'.repeat(40))]);
    const emoji = boundedHistory([turn('ab😀cd')], { maxTurns: 1, maxChars: 3 });
    expect(emoji).toEqual([turn('ab')]);
  });

  it('copies the turns (no extra fields leak through) and rejects nonsense bounds', () => {
    const withExtra = { role: 'user', content: 'hi', org_id: 'org_other' } as ChatTurn;
    expect(boundedHistory([withExtra])).toEqual([{ role: 'user', content: 'hi' }]);
    expect(Object.keys(boundedHistory([withExtra])[0] ?? {})).toEqual(['role', 'content']);
    expect(() => boundedHistory([], { maxTurns: 0, maxChars: 10 })).toThrow(RangeError);
    expect(() => boundedHistory([], { maxTurns: 1, maxChars: 1.5 })).toThrow(RangeError);
  });
});
