// Filled in by the auth work of the service core.
export {};
