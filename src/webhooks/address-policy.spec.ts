import {
  AddressRefusedError,
  assertGlobalHost,
  guardedLookup,
  nonGlobalReason,
} from './address-policy';

describe('nonGlobalReason', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.1',
    '100.64.0.1',
    '169.254.169.254',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.10',
    '198.51.100.1',
    '203.0.113.7',
    '198.18.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '3fff::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::7f00:1',
    '64:ff9b::a00:1',
    '64:ff9b:1::808:808',
    '2002:7f00:1::1',
    '2002:c0a8:101::1',
    '2001::1',
    '::7f00:1',
    '100::1',
  ])('refuses %s', (address) => {
    expect(nonGlobalReason(address)).not.toBeNull();
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('allows %s', (address) => {
    expect(nonGlobalReason(address)).toBeNull();
  });
});

describe('assertGlobalHost', () => {
  it('refuses a literal loopback address and localhost, naming the reason', async () => {
    await expect(assertGlobalHost(new URL('http://127.0.0.1:8080/hook'))).rejects.toThrow(
      /127\.0\.0\.1 .*loopback/,
    );
    await expect(assertGlobalHost(new URL('http://[::1]/hook'))).rejects.toThrow(/loopback/);
    await expect(assertGlobalHost(new URL('http://localhost/hook'))).rejects.toBeInstanceOf(
      AddressRefusedError,
    );
  });

  it('allows a literal global address', async () => {
    await expect(assertGlobalHost(new URL('https://8.8.8.8/hook'))).resolves.toBeUndefined();
  });
});

describe('guardedLookup', () => {
  it('fails the connection when the name resolves to loopback', async () => {
    const error = await new Promise<Error | null>((resolve) =>
      guardedLookup('localhost', { all: false }, (err) => resolve(err)),
    );
    expect(error).toBeInstanceOf(AddressRefusedError);
  });
});
