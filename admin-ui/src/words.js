/** "1 action", "3 actions"; `many` for irregular plurals. */
export const count = (n, one, many = `${one}s`) => `${n} ${Number(n) === 1 ? one : many}`;
