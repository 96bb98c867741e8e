import { describe, expect, it } from 'vitest';
import { variablesOf } from './admin';

describe('template variables', () => {
  it('are the {{n}} placeholders of the header and body, in order', () => {
    expect(
      variablesOf([
        { type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
        { type: 'BODY', text: 'Hi {{1}}, your order {{ 2 }} ships {{date}}.' },
        { type: 'FOOTER', text: 'not {{3}}' },
        { type: 'BUTTONS', buttons: [] },
      ]),
    ).toEqual([
      { key: '1', component: 'header' },
      { key: '1', component: 'body' },
      { key: '2', component: 'body' },
      { key: 'date', component: 'body' },
    ]);
    expect(variablesOf([{ type: 'BODY', text: 'No variables' }])).toEqual([]);
  });
});
