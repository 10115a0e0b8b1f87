// SMS segment counting is generic carrier knowledge; it lives in the sdk so the runtime bills with the same rules.
export { countSegments } from '@switchboard/sdk';
export type { SegmentCount } from '@switchboard/sdk';
