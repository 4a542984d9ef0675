/** Unit specs beside the code. */
module.exports = {
  rootDir: 'src',
  testRegex: '.*\\.spec\\.ts$',
  moduleFileExtensions: ['js', 'json', 'ts'],
  transform: { '^.+\\.ts$': 'ts-jest' },
  testEnvironment: 'node',
  // scrypt on a loaded CI machine can take longer than Jest's default 5 s.
  testTimeout: 30000,
};
