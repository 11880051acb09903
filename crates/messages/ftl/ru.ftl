# Слова арбитра по-русски. Термины — как в Правилах ФИДЕ на русском
# (невозможный ход, «тронул — ходи», падение флажка, мёртвая позиция).
# Стороны приходят ключами ($side, $to: white / black), фигуры — ключами ($role),
# чтобы падеж выбирал каталог.

## Где вынесено решение: начало каждой строки.

at-move = доска { $board }, ход { $move }, { $text }
at-board = доска { $board }: { $text }
by-side = { $side ->
        [white] Белые
       *[black] Чёрные
    }: { $text }
side = { $side ->
        [white] Белые
       *[black] Чёрные
    }

## Фигуры и ходы (русская нотация: Кр, Ф, Л, С, К; у пешки буквы нет, поля — e4).

piece-letter = { $role ->
        [king] Кр
        [queen] Ф
        [rook] Л
        [bishop] С
        [knight] К
       *[pawn] { "" }
    }
# Фигура в шагах восстановления (винительный падеж).
piece = { $color ->
        [white] { $role ->
            [king] белого короля
            [queen] белого ферзя
            [rook] белую ладью
            [bishop] белого слона
            [knight] белого коня
           *[pawn] белую пешку
        }
       *[black] { $role ->
            [king] чёрного короля
            [queen] чёрного ферзя
            [rook] чёрную ладью
            [bishop] чёрного слона
            [knight] чёрного коня
           *[pawn] чёрную пешку
        }
    }
step-remove = снять { $piece } с { $square }
step-put = поставить { $piece } на { $square }

## Невозможные ходы (ст. 7.5).

illegal-move = невозможный ход ({ $category })
illegal-category = { $category ->
        [king-in-check] король остался под шахом
        [castling] недопустимая рокировка
        [en-passant] недопустимое взятие на проходе
        [piece-movement] фигура пошла не по правилам
        [unpromoted-pawn] нет превращения пешки
        [clock-without-move] нажатие часов без хода
        [wrong-color] ход фигурой соперника
        [multiple-moves] больше одного хода
        [piece-added-or-removed] фигура добавлена или убрана
        [two-handed] ход двумя руками
       *[other] невозможный ход
    }
illegal-count = { $count }-й невозможный ход этого игрока
illegal-clock-counted = часы засчитали это нажатие как ход: уменьшите их счётчик ходов на один
illegal-put-back = восстановить позицию: { $steps }
illegal-correct = исправить (превращение пешки): { $steps }
illegal-must-move = фигура на { $square } должна сделать ход («тронул — ходи»)
penalty = добавить сопернику ({ $to ->
        [white] белым
       *[black] чёрным
    }) { $add }
penalty-clock = добавить сопернику ({ $to ->
        [white] белым
       *[black] чёрным
    }) { $add }: { $before } -> { $after }
increment-taken-back = { $side ->
        [white] Белые
       *[black] Чёрные
    } { $before } -> { $after } (добавление за невозможное нажатие снято)
illegal-second = второй невозможный ход: партия окончена, { $result }
mate-undetermined = неизвестно, может ли соперник ещё поставить мат: арбитр, проверьте
illegal-stands = невозможный ход { $side ->
        [white] белых
       *[black] чёрных
    } остаётся в силе (соперник ответил до исправления); партия продолжается с позиции { $fen }

## «Тронул — ходи» (ст. 4.3), ход двумя руками (ст. 4.1), сдвинутые фигуры (ст. 7.4).

touch-move = возможное нарушение правила «тронул — ходи»: тронуты { $touched } в этом порядке, поэтому { $duty }; сыграно { $played }
duty-move = фигура на { $square } должна была сделать ход
duty-capture = фигуру на { $square } надо было взять
duty-castle = надо было сделать рокировку с ладьёй на { $square }
duty-king = король должен был сделать ход
two-handed = подозрение на ход двумя руками ({ $move }): { $evidence }
two-handed-comment = подозрение на ход двумя руками: { $evidence }
# Что сдвинуто, говорят шаги восстановления ($what — английский текст трекера).
displaced = фигуры сдвинуты при ходе (ст. 7.4: это не невозможный ход; арбитр может наказать); восстановить позицию: { $steps }
displaced-reestablished = сдвинутые фигуры поставлены на место
position-restored = позиция восстановлена

## Ничьи и окончание партии.

draw-claimable = { $side ->
        [white] Белые
       *[black] Чёрные
    } могут потребовать ничью ({ $reason })
draw-claimable-with = { $side ->
        [white] Белые
       *[black] Чёрные
    } могут потребовать ничью ({ $reason }), заявив ход { $move }
draw-reason = { $reason ->
        [threefold] троекратное повторение
       *[fifty-moves] правило 50 ходов
    }
game-over = партия окончена после { $plies } { $plies ->
        [one] полухода
        [few] полуходов
        [many] полуходов
       *[other] полухода
    }: { $result } ({ $reason })
flag-fell = падение флажка { $side ->
        [white] белых
       *[black] чёрных
    }
end-reason = { $reason ->
        [checkmate] мат
        [stalemate] пат
        [dead-position] мёртвая позиция
        [fivefold] пятикратное повторение
        [seventy-five-moves] правило 75 ходов
        [second-illegal-move] второй невозможный ход
        [flag] падение флажка
        [threefold] троекратное повторение
        [fifty-moves] правило 50 ходов
        [resignation] сдача
        [agreement] соглашение
        [arbiter] решение арбитра
       *[result-on-board] результат показан королями
    }

## Часы (ст. 6.10.2: ошибка установки, а не игрока).

clock-mismatch = часы ошиблись: { $what } (ст. 6.10.2)
mismatch-early-no-move = часы добавили время следующего периода при нажатии без хода, до завершения { $due }-го хода (исправьте их счётчик ходов)
mismatch-early = часы добавили время следующего периода на { $move }-м ходу, а положено на { $due }-м (часы засчитали нажатие без хода: исправьте их счётчик ходов)
mismatch-late = часы добавили время следующего периода на { $move }-м ходу; положено было на { $due }-м
mismatch-not-added = часы не добавили время следующего периода, положенное на { $due }-м ходу
clock-set = установить часы { $side ->
        [white] белых
       *[black] чёрных
    }: { $before } -> { $after }
no-penalty = без штрафа, результат не меняется

## Ходы, которых доска не видела.

recovery-uncertain = ходы, сделанные, пока доска не читалась, неточны: записано { $recorded }; доска показывает те же поля после { $alternatives }; сверьте с бланками
or-after = , или после { $line }
position-accepted = { $how }, ход { $side ->
        [white] белых
       *[black] чёрных
    } ({ $fen }); ходы после полухода { $ply } не видны
accepted-as-is = арбитр принял позицию на доске
accepted-lines = продолжено с позиции, к которой ведут все найденные варианты, порядок ходов неизвестен ({ $lines }: вариант для записи выбирает арбитр)
accepted-count-unknown = сколько сделано ходов, неизвестно (как минимум { $count } { $count ->
        [one] полуход
        [few] полухода
        [many] полуходов
       *[other] полухода
    }): номера ходов отсюда могут быть занижены
out-of-sync = позиция на доске не объясняется допустимыми ходами; проверьте её
out-of-sync-lines = ходы, сделанные незаметно, точно не известны; подходящие варианты: { $lines }; сверьте их с бланками
arbiter-decision-comment = решение арбитра: { $text }
arbiter-clock-set = арбитр устанавливает часы: белым { $white }, чёрным { $black } (ст. 6.10, 12.9): { $reason }

## Панель арбитра: заголовки замечаний, пометки и факты карточки (их пишет демон).

alert-illegal = Невозможный ход
alert-second-illegal = Второй невозможный ход
alert-illegal-stands = Невозможный ход остаётся в силе
alert-touch-move = Возможно нарушение «тронул — ходи»
alert-two-handed = Подозрение на ход двумя руками
alert-displaced = Фигуры сдвинуты (7.4)
alert-ruling-unclear = Решения нет: арбитр, посмотрите
alert-clock-early = Часы: время периода добавлено рано
alert-clock-late = Часы: время периода добавлено поздно
alert-clock-not-added = Часы: время периода не добавлено
alert-uncertain = Ходы неточны после разрыва связи
alert-disconnected = Доска отключена
alert-clock-disconnected = Часы отключены
alert-out-of-sync = Доска не совпадает с записью
alert-result-disputed = Результат оспорен
alert-end-title = { $reason ->
        [checkmate] Мат
        [stalemate] Пат
        [dead-position] Мёртвая позиция
        [fivefold] Пятикратное повторение
        [seventy-five-moves] Правило 75 ходов
        [second-illegal-move] Второй невозможный ход
        [flag] Падение флажка
        [threefold] Троекратное повторение
        [fifty-moves] Правило 50 ходов
        [resignation] Сдача
        [agreement] Ничья по соглашению
        [arbiter] Решение арбитра
       *[result-on-board] Результат показан на доске
    }
alert-times = { $title } ({ $count } раз)
alert-result-disputed-text = доска { $board }: по доске результат { $on-board }, у арбитра { $arbiter }; подтвердите один из них (файл результатов ждёт)
alert-displaced-category = фигуры сдвинуты (ст. 7.4)
alert-count = { $count }-й невозможный ход { $side ->
        [white] белых
       *[black] чёрных
    }
note-stands = соперник ответил до исправления: ход остаётся в силе
note-game-over = партия окончена: { $result }
note-reestablished = фигуры поставлены на место
note-reconnected = связь восстановлена
note-clock-reconnected = часы снова подключены
note-back-in-sync = доска снова совпадает с записью
note-settled = решено
note-settled-with = решено: { $result }

## Страница панели: надписи, кнопки и строки (отдаются как /api/messages; страница
## подставляет { $name }, поэтому без выбора вариантов: выбор — это два сообщения).

dash-title = dgt-arbiter: панель арбитра
dash-round = тур { $round }
# Буквы короля, ферзя, ладьи, слона и коня в записи ходов, через пробел.
dash-san-letters = Кр Ф Л С К
dash-language = язык
dash-connecting = подключение
dash-live = на связи
dash-live-title = связь с демоном в реальном времени
dash-reconnecting = переподключение
dash-offline = нет связи
dash-locked = закрыто
dash-push-title = последняя отправка тура с задержкой на сервер трансляции
dash-push-ok = отправлено { $time }: партий { $games }
dash-push-failed = отправка не удалась { $time }: партий { $games }
dash-push-last = последняя отправка на сервер трансляции в { $at }: { $answer }
dash-sound = звук
dash-token = ключ
dash-token-label = Ключ арбитра
dash-token-use = войти
dash-token-forget = забыть
dash-token-checked = ключ проверен
dash-token-accepted = ключ принят
dash-token-forgotten = ключ забыт
dash-private = Панель закрыта: введите ключ арбитра ([http] token в конфигурации демона, иначе файл arbiter-token в его папке вывода). ({ $why })
dash-alerts = Замечания
dash-alert-count = открыто: { $open }, принято: { $acknowledged }
dash-more = ещё { $count }
dash-no-alerts = Замечаний нет.
dash-resolved = Решённые
dash-claims = Можно потребовать ничью
dash-none-now = Сейчас нет.
dash-boards = Доски
dash-connected-count = на связи { $online } из { $total }
dash-close = закрыть
dash-white = Белые
dash-black = Чёрные
dash-board = Доска { $board }
dash-card-board = доска { $board }
dash-state-open = открыто
dash-state-acknowledged = принято
dash-state-resolved = решено
dash-position = позиция { $fen }
dash-before = до
dash-after = после
dash-offender = Нарушитель
dash-what = Что
dash-count = Счёт
dash-penalty = Наказание
dash-result = Результат
dash-result-undetermined = { $result } (не определён: посмотрите позицию)
dash-put-back = Восстановить позицию
dash-correct = Исправить
dash-must-move = Должна ходить
dash-must-move-piece = фигура на { $square } («тронул — ходи»)
dash-clocks = Часы
dash-to-reinstate = восстановить:
dash-take-off = снять
dash-put-on = поставить
dash-acknowledge = Принять
dash-resolve = Решено
dash-minutes-label = сколько минут добавить сопернику
dash-min = мин
dash-warn = Предупредить
dash-add-time-white = Добавить время белым
dash-add-time-black = Добавить время чёрным
dash-game-lost-white = Засчитать поражение белым
dash-game-lost-black = Засчитать поражение чёрным
dash-click-again = Нажмите ещё раз, чтобы засчитать поражение
dash-confirm-board = Подтвердить результат доски { $result }
dash-confirm-arbiter = Подтвердить результат арбитра { $result }
dash-arbiter-result-label = результат арбитра
dash-result-facts = доска: { $board } · арбитр: { $arbiter }
dash-none-yet = пока нет
dash-none = нет
dash-disputed = · оспорен: подтвердите один
dash-set-result = Записать результат
dash-clear-result = Отменить
dash-no-move-yet = ходов ещё нет
dash-open-badge = открыто: { $count }
dash-unattended = без арбитра
dash-move-white = ход { $move }, ходят белые
dash-move-black = ход { $move }, ходят чёрные
dash-no-control-left = контролей больше нет
dash-one-move-to-control = 1 ход до контроля
dash-moves-to-control = { $count } ход. до контроля
dash-history-title = Доска { $board }: { $players }, партия { $game }
dash-history-move = ход
dash-history-clock = часы
dash-history-touches = касания (↑ поднята, ↓ поставлена)
dash-no-press = без нажатия
dash-no-moves = Ходов ещё нет.
dash-board-alerts = Замечания по этой доске
dash-error-status = ошибка { $status }
dash-unreachable = демон недоступен
dash-refused = отказано ({ $status }): { $why }
dash-refused-why = отказано: { $why }
dash-ply-label = полуход по бланкам
dash-ply-placeholder = полуход (по бланку)
dash-accept-white = Принять доску, ходят белые
dash-accept-black = Принять доску, ходят чёрные
dash-record-line = Записать { $line }
dash-moves-label = ходы пропуска
dash-moves-placeholder = ходы пропуска латиницей, напр. 8. Nd4 Qg5
dash-enter-moves = Ввести ходы
dash-no-moves-given = ходы не указаны
# Стол арбитра в истории доски (задача 40): взять ход назад, установить время на часах.
dash-desk = Стол арбитра
dash-takeback-ply-label = полуход, до которого взять ходы назад
dash-takeback-ply-placeholder = полуход
dash-takeback = Взять ход назад до полухода { $ply }
dash-takeback-reason-placeholder = причина, напр. невозможный ход на полуходе 21 обнаружен позже (ст. 7.5.1)
dash-reason-label = причина
dash-clock-white-label = время белых (ч:мм:сс или м:сс)
dash-clock-black-label = время чёрных (ч:мм:сс или м:сс)
dash-clock-placeholder = ч:мм:сс
dash-clock-reason-placeholder = причина, напр. часы были установлены неверно (ст. 6.10.2)
dash-set-clocks = Установить время на часах
dash-bad-ply = укажите полуход, до которого взять ходы назад (число)
dash-bad-time = «{ $value }» — не время: укажите ч:мм:сс или м:сс
dash-taken-back = Ход взят назад до полухода { $ply }: восстановите эту позицию на доске
dash-clocks-set = Время на часах установлено: белые { $white }, чёрные { $black }

## desk-evidence: the evidence button on an alert card (issue 40)
dash-evidence = Доказательства
dash-evidence-title = Скачать пакет доказательств доски { $board }, полуход { $ply } (события, касания, часы, байты порта, диаграммы, манифест с SHA-256)
dash-evidence-making = собираю пакет доказательств…
dash-evidence-saved = сохранено: { $file } ({ $kb } КБ)

## lang-rest: комментарии PGN (на языке турнира; ходы вне комментариев — английской записью).

pgn-set-up-again = начальная позиция расставлена заново
pgn-recovered = записан по доске после пропуска в её событиях (нажатия часов не видно)
pgn-promotion-corrected = исправление арбитра: непревращённая пешка становится ферзём
pgn-entered = введён арбитром
pgn-gap-entered = ходы пропуска введены арбитром
taken-back = арбитр вернул партию к полуходу { $ply } ({ $annulled ->
        [one] отменён { $annulled } полуход
        [few] отменены { $annulled } полухода
       *[other] отменены { $annulled } полуходов
    })
taken-back-why = арбитр вернул партию к полуходу { $ply } ({ $annulled ->
        [one] отменён { $annulled } полуход
        [few] отменены { $annulled } полухода
       *[other] отменены { $annulled } полуходов
    }): { $reason }
taken-back-show = { $text }; доска должна снова показать эту позицию ({ $fen })
pgn-accepted-lines = все найденные варианты ведут к одной позиции, порядок ходов неизвестен ({ $lines }): вариант выбирает арбитр
pgn-out-of-sync-closed = доска перестала совпадать с записью после полухода { $ply }; { $by }; партия продолжается как партия { $next }
pgn-goes-on = партия { $game } продолжается с { $whose ->
        [arbiter] позиции, принятой арбитром,
       *[lines] позиции, к которой ведут все найденные варианты,
    } после того как доска перестала совпадать с записью (ход { $side ->
        [white] белых
       *[black] чёрных
    }; ходы после полухода { $ply } не видны)
pgn-count-unknown = сколько ходов сделано незаметно, неизвестно (как минимум { $count } { $count ->
        [one] полуход
        [few] полухода
       *[other] полуходов
    }): номера ходов отсюда наименьшие возможные и могут быть занижены
pgn-game-over = партия окончена: { $reason }
pgn-mate-undetermined = неизвестно, может ли соперник ещё поставить мат
pgn-unfinished = не закончена: { $why }
pgn-daemon-stopped = демон остановлен; партия продолжится после его перезапуска

## lang-rest: ошибки файла настроек и командной строки (на языке пользователя: --lang,
## иначе LC_ALL / LC_MESSAGES / LANG; подробности от разборщика TOML остаются английскими).

error = Ошибка: { $text }
error-caused-by = Причина:
error-not-found = нет такого файла или каталога
error-permission = нет доступа
config-read = не удаётся прочитать файл настроек { $path }
config-mistakes = { $path }: { $count } { $count ->
        [one] ошибка
        [few] ошибки
       *[other] ошибок
    }
config-toml-syntax = ошибка синтаксиса TOML: { $detail }
config-bad-value = неверное значение: { $detail }
config-unknown-key = неизвестный ключ `{ $key }`; допустимые ключи: { $expected }
config-unknown-key-alone = неизвестный ключ `{ $key }`
config-missing-key = нет обязательного ключа `{ $key }`
config-out-of-range = { $key } = { $value } вне допустимых пределов; ожидается от { $low } до { $high }{ $unit }
config-time-control = { $key } { $value } — не контроль времени ({ $problem ->
        [empty] пусто
        [empty-period] период { $period } пуст
        [bad-moves] период { $period } ({ $part }): число ходов { $number } — не целое число больше 0
        [bad-seconds] период { $period } ({ $part }): время { $number } — не целое число секунд
        [bad-increment] период { $period } ({ $part }): добавление { $number } — не целое число секунд
        [sudden-death-not-last] у периода { $period } ({ $part }) нет числа ходов, он длится до конца партии, а за ним идёт ещё период
        [out-of-bounds] период { $period } ({ $part }) вне пределов: от 1 секунды до 6 часов (21600) и добавление от 0 до 600 секунд
        [too-many-periods] периодов: { $periods }, а контроль времени может иметь не больше { $max } (как у DGT3000)
       *[unsupported] { $part } — форма PGN, которую демон не ведёт («?» неизвестно, «-» без контроля, «*СЕКУНДЫ» — песочные часы)
    }); пишите ОСНОВНОЕ+ДОБАВЛЕНИЕ в секундах, например 180+2, или периоды ХОДЫ/СЕКУНДЫ[+ДОБАВЛЕНИЕ] через «:», например 40/5400+30:1800+30
config-board-twice = номер доски { $board } указан дважды; у каждой доски должен быть свой номер
config-port-missing = доска { $board }: порта { $port } нет; укажите устройство доски (например, /dev/dgt/board-{ $board } или /dev/ttyACM0; их перечисляет `dgt-arbiter probe`) или её serial = "..."
config-port-shared = доска { $board }: порт { $port } — устройство доски { $other } ({ $device }); у каждой доски должен быть свой порт
config-serial-bad = доска { $board }: serial { $serial } — не серийный номер DGT; ожидается от 1 до 16 латинских букв или цифр, например "01025" (его показывает `dgt-arbiter probe`)
config-port-and-serial = у доски { $board } указаны и port, и serial; нужно что-то одно
config-no-port = у доски { $board } нет ни port, ни serial; укажите port = "/dev/..." или serial = "..." (или source = "livechess://...")
config-trf = event.trf: { $detail }; ожидается файл TRF-16 программы жеребьёвки с жеребьёвкой тура { $round }
config-warning = предупреждение: { $text }
config-port-retry = { $text }; драйвер доски продолжает пытаться открыть его

## lang-rest: пояснения трекера (поля JSON, по-английски) — здесь из фактов события.

pgn-displaced = фигуры сдвинуты при ходе (ст. 7.4: это не невозможный ход); восстановить позицию: { $steps }
pgn-displaced-reestablished = фигуры, сдвинутые при ходе (ст. 7.4), поставлены на место: { $steps }
ruling-unclear = доска допускает больше одного хода со сбитыми фигурами ({ $readings }): арбитр, посмотрите; решение не выносится
ruling-unclear-or = или
decision-warning = арбитр делает предупреждение { $side ->
        [white] белым
       *[black] чёрным
    } за сдвинутые фигуры (ст. 7.4, 12.9.1)
decision-time-added = арбитр добавляет { $to ->
        [white] белым
       *[black] чёрным
    } { $add } за фигуры, сдвинутые { $side ->
        [white] белыми
       *[black] чёрными
    } (ст. 7.4, 12.9.2)
decision-game-lost = арбитр засчитывает поражение { $side ->
        [white] белым
       *[black] чёрным
    } за повторно сдвинутые фигуры (ст. 7.4, 12.9.6): { $result }
decision-result = арбитр { $verb ->
        [set] устанавливает
       *[confirm] подтверждает
    } результат { $result }
decision-result-board = арбитр { $verb ->
        [set] устанавливает
       *[confirm] подтверждает
    } результат { $result } (по доске: { $board })
decision-cleared = арбитр отменяет свой результат
decision-cleared-board = арбитр отменяет свой результат: действует результат доски { $board }
board-status = состояние доски: { $status ->
        [connected] подключена
        [disconnected] отключена
        [clock-connected] часы подключены
        [clock-disconnected] часы отключены
        [orientation] определена ориентация доски
        [white-clock] определено, с какой стороны часы белых
        [out-of-sync] не совпадает с записью
       *[in-sync] снова совпадает с записью
    }

## The demo's terminal lines (`dgt-arbiter demo`; the leading spaces are the program's).
demo-banner = dgt-arbiter demo: { $boards } { $boards ->
        [one] эмулированная доска
        [few] эмулированные доски
       *[other] эмулированных досок
    }, блиц { $tc }, скорость { $speed }x
demo-config = настройки: { $path }
demo-outputs = выходные файлы: { $path }
demo-dashboard = панель арбитра: http://{ $addr }/ (токен арбитра в { $token })
demo-board = доска { $board }: { $white } - { $black } на { $pty }
demo-irregularities = ; нарушения: { $list }
demo-irregularity = { $what } (полуход { $ply })
demo-skipped = ({ $what } не подходит к этой партии: { $why })
demo-rulings = Решения по мере игры (Ctrl-C, чтобы остановить раньше):
demo-interrupted = прервано
demo-over = Партии окончены; панель арбитра остаётся на http://{ $addr }/ (Ctrl-C, чтобы остановить).
demo-unfinished = не доиграна
demo-summary = Итог:
demo-summary-board = доска { $board }: { $white } - { $black }: { $result }{ $termination }, полуходов: { $plies }, решений арбитра: { $rulings }
demo-files = Файлы в { $dir }:
demo-file-round = все партии тура
demo-file-livechess = папка LiveChess (tournament.json, round-1/...)
demo-file-events = события в JSON
demo-file-journals = журналы досок
