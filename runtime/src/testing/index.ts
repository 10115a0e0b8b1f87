export { describeBusConformance } from './bus-conformance.js';
