// Preloaded (node --require) into published servers that listen on all interfaces with a
// fixed PORT: binds them to 127.0.0.1 instead and reports the port the OS chose for PORT=0.
const net = require('node:net');
const original = net.Server.prototype.listen;
net.Server.prototype.listen = function listen(...args) {
  if ((typeof args[0] === 'number' || typeof args[0] === 'string') && typeof args[1] !== 'string') {
    args.splice(1, 0, '127.0.0.1');
  }
  this.once('listening', () => {
    const address = this.address();
    if (address && typeof address === 'object')
      process.stderr.write(`SWITCHBOARD_TEST_PORT=${address.port}\n`);
  });
  return original.apply(this, args);
};
