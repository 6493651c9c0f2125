// The "not reachable" page (offline.html, shown by sw.js): in the language the app was set to
// (or the browser's), and "Try again" reloads the page the person wanted.
(function () {
  var saved = null;
  try {
    saved = localStorage.getItem('pennypost.language');
  } catch (e) {
    saved = null;
  }
  var language = saved || navigator.language || 'en';
  if (/^zh/i.test(language)) {
    document.documentElement.lang = 'zh-CN';
    document.title = '无法连接 PennyPost';
    document.getElementById('title').textContent = '无法连接 PennyPost';
    document.getElementById('text').textContent = 'PennyPost 服务器没有响应。请确认运行它的电脑已开机并与本设备在同一网络中，然后重试。';
    document.getElementById('retry').textContent = '重试';
  }
  document.getElementById('retry').addEventListener('click', function () {
    location.reload();
  });
})();
