/** The version of this sdk; drivers declare the range they support in their manifest. */
export const SDK_VERSION = '0.1.0';
