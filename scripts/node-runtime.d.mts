export declare function nodeBinary(major: string): string;
export declare function npmPackage(spec: string): string;
