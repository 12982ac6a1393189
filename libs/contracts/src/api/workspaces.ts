// Filled in by the workspaces work of the service core.
export {};
