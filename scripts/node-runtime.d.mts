export declare function nodeBinary(major: string): string;
