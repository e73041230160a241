"""Builds the CJK search test set: histories.jsonl and queries.jsonl.

Each history is about one topic, sometimes mentions a second one, and is written in Japanese,
English, or both. A query is relevant to the histories whose topics (first or second) it names in
queries.jsonl's "topics"; the judgements come from the topics, before anything is measured.
Deterministic: python3 gen.py rewrites the same files.
"""
import json, random

T = {
 "login": (["管理者アカウントへの不審なログインが発生しました", "ログイン失敗が短時間に300回記録されています", "深夜に海外IPからログインに成功しています", "ブルートフォース攻撃によるログイン試行と思われます"],
           ["Repeated failed logins against the admin account", "A brute force attack against SSH logins", "Successful login from an unusual country at 3am"],
           ["不正ログインの調査", "ログイン試行の急増", "Brute force login attempts"]),
 "takeover": (["アカウントが乗っ取られた可能性があります", "攻撃者にアカウントを乗っ取られたユーザーがいます", "アカウント乗っ取りの兆候として転送ルールが追加されました"],
              ["The mailbox looks like an account takeover", "Forwarding rules typical of account takeover were added"],
              ["アカウント乗っ取りの疑い", "Account takeover suspected"]),
 "privesc": (["一般ユーザーから権限昇格が行われました", "sudo の設定不備を悪用した権限昇格です", "カーネルの脆弱性を使ってroot権限を取得しています"],
             ["A privilege escalation through a misconfigured sudo rule", "The process gained root by privilege escalation"],
             ["権限昇格の検知", "Privilege escalation on web server"]),
 "c2": (["C2サーバーへの不審な通信が続いています", "不審な通信先は既知のC2ドメインです", "一定間隔のビーコン通信が見られます"],
        ["Periodic beaconing to a known C2 server", "Outbound C2 traffic every 60 seconds"],
        ["不審な通信の調査", "C2 beaconing from host"]),
 "exfil": (["大量のデータが外部ストレージへ送信され、情報漏洩の恐れがあります", "顧客データの持ち出しによる情報漏洩が疑われます"],
           ["Large uploads suggest data exfiltration to cloud storage", "Data exfiltration of customer records over HTTPS"],
           ["情報漏洩の可能性", "Data exfiltration suspected"]),
 "ransom": (["ファイルサーバーでランサムウェアによる暗号化が始まりました", "ランサムウェアの身代金要求メモが見つかりました"],
            ["Ransomware started encrypting the file share", "A ransom note was dropped by the ransomware"],
            ["ランサムウェア感染", "Ransomware on file server"]),
 "mining": (["EC2でクリプトマイニングのプロセスが動いています", "仮想通貨の採掘によりCPU使用率が100%です", "マイニングプールへの接続が確認されました"],
            ["A crypto mining process is using all CPUs", "Connections to a crypto mining pool"],
            ["クリプトマイニングの検知", "Crypto mining on EC2"]),
 "phishing": (["経理部宛てのスピアフィッシングメールです", "フィッシングサイトで認証情報が入力されました"],
              ["A spear phishing mail sent to finance", "Credentials were entered on a phishing page"],
              ["フィッシングメールの報告", "Phishing mail reported"]),
 "logs": (["CloudTrailのログ収集が停止しています", "ログの保存期間を90日から1年に延ばします", "ログ転送エージェントのエラーです"],
          ["CloudTrail log delivery stopped", "Log retention should be raised to one year"],
          ["ログ収集の停止", "Log delivery stopped"]),
 "perms": (["IAM権限の棚卸しを行います", "不要な権限を持つロールを整理します", "権限の見直しで過剰なポリシーが見つかりました"],
           ["Quarterly IAM permission review", "Roles with excess permissions found in the review"],
           ["IAM権限の棚卸し", "IAM permission review"]),
 "kyoto": (["京都オフィスのVPN装置からのアラートです", "京都拠点のプロキシで遮断されました"],
           ["Alert from the Kyoto office VPN appliance"],
           ["京都オフィスのVPN", "Kyoto office VPN alert"]),
 "tokyo": (["東京都内のデータセンターで停電がありました", "東京都の拠点で回線障害です"],
           ["Power failure at the Tokyo data center"],
           ["東京都のデータセンター", "Tokyo data center outage"]),
 "malware": (["端末がマルウェアに感染しています", "トロイの木馬が常駐しています", "EDRがマルウェアを隔離しました"],
             ["The laptop is infected with malware", "A trojan was quarantined by the EDR"],
             ["マルウェア感染端末", "Malware infection on laptop"]),
 "lateral": (["SMB経由で横展開が行われています", "攻撃者は複数のサーバーへ横展開しました"],
             ["Lateral movement over SMB to five hosts", "The attacker moved laterally with PsExec; lateral movement confirmed"],
             ["横展開の調査", "Lateral movement over SMB"]),
 "scan": (["外部からポートスキャンを受けています", "脆弱性スキャナーによる大量のリクエストです"],
          ["A port scan from a cloud provider range", "A vulnerability scanner hit every endpoint"],
          ["ポートスキャンの検知", "Port scan from outside"]),
 "compromise": (["侵害されたEC2インスタンスを隔離しました", "このインスタンスは侵害されています", "侵害範囲を特定するため調査を続けます"],
                ["The EC2 instance is compromised", "We isolated the compromised instance"],
                ["侵害されたインスタンス", "Compromised EC2 instance"]),
 "ids": (["侵入検知システムのシグネチャを更新しました", "侵入検知の閾値を調整します"],
         ["IDS signatures were updated", "Tuning the intrusion detection thresholds"],
         ["侵入検知のチューニング", "IDS tuning"]),
 "dns": (["DNSトンネリングによる通信が疑われます", "長いサブドメインへのDNSクエリが大量にあります"],
         ["DNS tunneling through long subdomains", "Suspected DNS tunneling to a rare domain"],
         ["DNSトンネリングの疑い", "DNS tunneling suspected"]),
 "stuffing": (["クレデンシャルスタッフィング攻撃を受けています", "漏洩したパスワードリストによる攻撃です"],
              ["Credential stuffing against the customer portal", "A password list attack from many IPs"],
              ["クレデンシャルスタッフィング", "Credential stuffing attack"]),
 "s3": (["S3バケットの公開設定が有効になっています", "バケットがパブリックアクセス可能です"],
        ["An S3 bucket was made public", "Public access block was removed from the bucket"],
        ["S3バケットの公開設定", "Public S3 bucket"]),
 "insider": (["退職予定者による内部不正の疑いがあります", "内部不正として大量ダウンロードを調べます"],
             ["Insider threat: a leaver downloaded the design files"],
             ["内部不正の調査", "Insider threat investigation"]),
 "fp": (["これは誤検知です", "誤検知のため抑制ルールを追加します"],
        ["This is a false positive", "A false positive from the backup job"],
        ["誤検知の確認", "False positive check"]),
 "mfa": (["多要素認証の通知が何十回も送られています", "MFA疲労攻撃の可能性があります"],
         ["MFA fatigue: dozens of push prompts", "The user approved an MFA push by mistake"],
         ["多要素認証の連続通知", "MFA fatigue attack"]),
 "webshell": (["ウェブシェルがアップロードされました", "WebサーバーにPHPのウェブシェルが置かれています"],
              ["A web shell was uploaded to the CMS", "PHP web shell found under uploads"],
              ["ウェブシェルの発見", "Web shell on CMS"]),
 "ko_login": (["관리자 계정에 비정상 로그인이 발생했습니다", "로그인 실패가 급증했습니다"], [], ["비정상 로그인 조사"]),
 "zh_leak": (["发现异常登录，可能存在数据泄露", "数据泄露事件需要调查"], [], ["数据泄露调查"]),
}
FILLER_JA = ["次の手順を教えてください", "対応方針をまとめます", "関係者に共有しました", "タイムラインを整理します", "影響範囲を確認してください"]
FILLER_EN = ["What should we do next?", "Summarise the timeline please", "I shared this with the team", "Check the scope of impact"]

rnd = random.Random(23)
names = list(T)
hist = []
i = 0
while len(hist) < 240:
    topic = names[i % len(names)]
    i += 1
    ja, en, titles = T[topic]
    langs = ["ja", "ja", "en", "mixed"] if en else ["ja"]
    lang = rnd.choice(langs)
    second = rnd.choice(names) if rnd.random() < 0.2 else None
    if second == topic or (second and not T[second][1] and lang != "ja"):
        second = None
    def sents(t, n):
        tja, ten, _ = T[t]
        out = []
        for _ in range(n):
            if lang == "ja" or (lang == "mixed" and rnd.random() < 0.5) or not ten:
                out.append(rnd.choice(tja))
            else:
                out.append(rnd.choice(ten))
        return out
    body = sents(topic, 3)
    if second:
        body.append(sents(second, 1)[0])
    filler = FILLER_JA if lang == "ja" else FILLER_EN if lang == "en" else FILLER_JA + FILLER_EN
    turns = []
    for s in body:
        fl = rnd.choice(filler)
        cjk = lambda x: any(ord(c) > 0x2e80 for c in x)
        if not fl.endswith("?"):
            fl += "。" if cjk(fl) else "."
        turns.append(fl + ("" if cjk(fl) else " ") + s + ("。" if cjk(s) else "."))
    if lang == "en":
        title = titles[-1]
    elif lang == "ja":
        title = titles[0]
    else:
        title = rnd.choice(titles)
    hid = "h%03d" % len(hist)
    hist.append({"id": hid, "title": title, "lang": lang, "topics": [topic] + ([second] if second else []), "turns": turns})

Q = [
 ("ログイン", ["login", "ko_login"][:1]), ("侵害", ["compromise"]), ("不審な通信", ["c2"]), ("権限昇格", ["privesc"]),
 ("ランサムウェア", ["ransom"]), ("マイニング", ["mining"]), ("フィッシング", ["phishing"]), ("情報漏洩", ["exfil"]),
 ("横展開", ["lateral"]), ("ポートスキャン", ["scan"]), ("ブルートフォース", ["login"]), ("乗っ取り", ["takeover"]),
 ("京都", ["kyoto"]), ("ログ収集", ["logs"]), ("権限", ["privesc", "perms"]), ("誤検知", ["fp"]),
 ("多要素認証", ["mfa"]), ("ウェブシェル", ["webshell"]), ("内部不正", ["insider"]), ("暗号化", ["ransom"]),
 ("公開設定", ["s3"]), ("DNSトンネリング", ["dns"]), ("C2サーバー", ["c2"]), ("クレデンシャルスタッフィング", ["stuffing"]),
 ("侵入検知", ["ids"]), ("仮想通貨", ["mining"]), ("トロイの木馬", ["malware"]), ("マルウェア", ["malware"]),
 ("スタッフィング", ["stuffing"]), ("ログ", ["logs"]), ("乗っ取られた", ["takeover"]), ("棚卸し", ["perms"]),
 ("로그인", ["ko_login"]), ("数据泄露", ["zh_leak"]), ("EC2 侵害", ["compromise"]), ("S3 公開設定", ["s3"]),
 ("brute force", ["login"]), ("privilege escalation", ["privesc"]), ("ransomware", ["ransom"]), ("phishing", ["phishing"]),
 ("lateral movement", ["lateral"]), ("port scan", ["scan"]), ("false positive", ["fp"]), ("data exfiltration", ["exfil"]),
 ("crypto mining", ["mining"]), ("web shell", ["webshell"]), ("MFA", ["mfa"]), ("IDS", ["ids"]),
]
with open("histories.jsonl", "w") as f:
    for h in hist:
        f.write(json.dumps(h, ensure_ascii=False) + "\n")
with open("queries.jsonl", "w") as f:
    for q, topics in Q:
        rel = [h["id"] for h in hist if set(h["topics"]) & set(topics)]
        f.write(json.dumps({"query": q, "topics": topics, "relevant": rel}, ensure_ascii=False) + "\n")
print(len(hist), "histories", len(Q), "queries")
