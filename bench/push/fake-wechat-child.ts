/** The fake WeChat API in its own process for the push bench (WeChat is another machine in reality). */
import { FakeWechatMp } from '../../server/test-support/fakes/fake-wechat-mp';

const wx = await new FakeWechatMp().start();
// Keep memory flat during long runs: the bench checks delivery counts, not contents.
const sent = wx.sent;
setInterval(() => {
  process.stdout.write(`sent ${sent.length}\n`);
}, 60_000).unref();
const push = sent.push.bind(sent);
let delivered = 0;
sent.push = (...items) => {
  delivered += items.length;
  if (sent.length > 1000) sent.length = 0;
  return push(...items);
};
process.stdout.write(JSON.stringify({ url: wx.url, appId: wx.appId, appSecret: wx.appSecret }) + '\n');
process.on('message', () => process.send?.({ delivered }));
process.on('disconnect', () => process.exit(0));
