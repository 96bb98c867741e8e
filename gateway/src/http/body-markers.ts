/**
 * Body parsing never fails a request by itself: a route that takes no body ignores whatever was sent
 * (the discontinued routes must answer 410 even to garbage). These markers let the pipeline refuse a
 * bad body only on routes that read one.
 */
export const UNPARSABLE_JSON = Object.freeze({ marker: 'unparsable-json' });
export const UNSUPPORTED_MEDIA = Object.freeze({ marker: 'unsupported-media-type' });
export const TOO_DEEP_JSON = Object.freeze({ marker: 'too-deep-json' });
