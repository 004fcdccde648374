export * from './domain-error';
export * from './clock';
