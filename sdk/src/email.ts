/** `Jane Doe <jane@example.com>` → `jane@example.com`: agents and channel lookup work on bare addresses. */
export function bareAddress(address: string): string {
  const match = /<([^<>]+)>\s*$/.exec(address);
  return (match ? match[1]! : address).trim();
}
