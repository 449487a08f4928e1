export * from './taxonomy.js';
export * from './envelope.js';
export * from './hivewatch-error.js';
export * from './retry.js';
export * from './classify.js';
