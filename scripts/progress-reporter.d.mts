export default function progress(source: AsyncIterable<{ type: string; data: any }>): AsyncGenerator<string>;
