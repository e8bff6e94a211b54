export const EXAMPLES: Record<string, unknown> = {};
