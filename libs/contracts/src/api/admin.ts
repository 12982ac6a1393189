// Filled in by the admin work of the service core.
export {};
