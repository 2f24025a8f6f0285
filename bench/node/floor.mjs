// Calls one unary method with an empty request from `clients` concurrent loops,
// 8 per connection, for `seconds`; prints the number of calls answered.
//   node floor.mjs HOST:PORT CLIENTS /package.Service/Method SECONDS
import * as grpc from "@grpc/grpc-js";

const [address, clients, method, seconds] = process.argv.slice(2);
const PER_CHANNEL = 8;
const same = (bytes) => bytes;
const channels = Array.from(
  { length: Math.ceil(Number(clients) / PER_CHANNEL) },
  (_, i) =>
    new grpc.Client(address, grpc.credentials.createInsecure(), {
      "grpc.use_local_subchannel_pool": 1,
      "grpc.enable_channelz": 0,
      "bench.channel": i,
    }),
);
const request = Buffer.alloc(0);
let calls = 0;
let stop = false;

function call(channel) {
  return new Promise((resolve, reject) => {
    channel.makeUnaryRequest(method, same, same, request, (error) =>
      error ? reject(error) : resolve(),
    );
  });
}

async function loop(index) {
  const channel = channels[Math.floor(index / PER_CHANNEL)];
  while (!stop) {
    await call(channel);
    calls += 1;
  }
}

setTimeout(() => {
  stop = true;
}, Number(seconds) * 1000);
await Promise.all(Array.from({ length: Number(clients) }, (_, i) => loop(i)));
console.log(calls);
process.exit(0);
