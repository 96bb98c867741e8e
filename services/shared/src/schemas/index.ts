export * from './common';
export * from './contacts';
export * from './validation';
